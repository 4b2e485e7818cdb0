// The all-in-one process: the six controller packages' entries in one manager (one client, one
// Lease, one informer per kind), as CAPM3 runs its controllers in one manager. Flags are the six
// packages' own plus the common ones, with the same names and meanings as when each runs alone;
// CAPM3's --metal3datatemplate-concurrency, which the data and dataclaim packages both take, is one
// flag sizing both. The Lease defaults to CAPM3's name, like each single controller's.
import { clusterEntry } from '@metal3-ts/controller-cluster/entry';
import { dataEntry } from '@metal3-ts/controller-data/entry';
import { dataClaimEntry } from '@metal3-ts/controller-dataclaim/entry';
import { labelSyncEntry } from '@metal3-ts/controller-labelsync/entry';
import { remediationEntry } from '@metal3-ts/controller-remediation/entry';
import { machineEntry } from '@metal3-ts/controller-machine/entry';
import { templateEntry } from '@metal3-ts/controller-template/entry';
import { combineEntries } from '@metal3-ts/shared/entry/combine';
import type { ControllerEntry } from '@metal3-ts/shared/entry/entry';
import type { FlagSpecs } from '@metal3-ts/shared/entry/flags';

export const ALL_IN_ONE_NAME = 'metal3-ts-all-in-one';

/** The seven entries, in the order their controllers are registered. */
export const entries: readonly ControllerEntry<FlagSpecs>[] = [
  clusterEntry,
  templateEntry,
  machineEntry,
  dataEntry,
  dataClaimEntry,
  labelSyncEntry,
  remediationEntry,
];

export const allInOneEntry = combineEntries(ALL_IN_ONE_NAME, entries);
