// What the phases of one Metal3Data reconcile found, in their own words, for deriveStatus (status.ts)
// to turn into the object the one patch writes. A phase records here and never writes the status;
// each field is one topic, set by the phase that owns it (named in the field's comment).
import type { Metal3Data } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { Association } from './decisions/association.ts';
import type { SecretTarget } from './decisions/secrets.ts';
import type { Allocations } from './phases/allocate.ts';
import type { RelatedObjects } from './render/index.ts';
import type { DataOutcome } from './status.ts';

/** The named units of work of a reconcile; a failure carries the one it happened in (StepError.step). */
export type DataStep =
  | 'finalizer'
  | 'associate'
  | 'secret read'
  | 'ip claims'
  | 'secret create'
  | 'claim deletion'
  | 'ip claim release'
  | 'finalizer removal'
  | 'status';

export interface Observations {
  /** The object the patch is computed against: as cached, or as our finalizer write returned it (`finalizer`). */
  data: Readonly<Metal3Data>;
  /** Template, claim and Metal3Machine, checked against each other (`associate`). */
  association?: Association;
  /** The Secrets the template asks for, named (D-10: deriveStatus records the names in the spec) (`associate`). */
  targets?: readonly SecretTarget[];
  /** The targets whose Secret does not exist yet (`secret read`). */
  pending?: readonly SecretTarget[];
  /** The Metal3Machine's owner Machine and host, copies for the renderer (`ip claims`). */
  related?: RelatedObjects;
  /** Pool name → address (`ip claims`). */
  allocations?: Allocations;
  /** Where the phases stopped: the phase that decided it ends the list. Undefined: status untouched. */
  outcome?: DataOutcome;
  /** The IP claims given back on deletion (`ip claim release`). */
  released?: readonly string[];
  /** Failed steps (StepErrors), in order: shown in errorMessage, then thrown together. */
  readonly errors: unknown[];
}
