// M-21…M-27: choosing and claiming a host for a Metal3Machine. The claim is one merge patch locked on
// the host's resourceVersion (shared/host/claim.ts), so any number of workers and replicas may
// associate at once and a host never gets two consumers; CAPM3 needs a process-wide mutex for that
// and still races across replicas (E-1). Candidates come from the informer's host index, not a
// list of the namespace per association (H-1).
//
// Order: claim the host, label its BMC Secret, then record the host on the Metal3Machine (the
// annotation is written by the reconcile's final patch). A crash in between is harmless: the next
// reconcile finds the host this machine already holds before anything else (H-4, E-31).
import { isNotFound, type Client } from '@metal3-ts/generated';
import type { Cluster, Machine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { SecretResource } from '@metal3-ts/generated/core/v1';
import type { Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { acquireHost } from '@metal3-ts/shared/host/acquire';
import { metal3MachineConsumer, type HostConsumer } from '@metal3-ts/shared/host/consumer';
import { hostKey } from '@metal3-ts/shared/host/host-patch';
import { InvalidHostSelectorError } from '@metal3-ts/shared/host/label-selector';
import { nodeReuseName } from '@metal3-ts/shared/host/node-reuse';
import { provisioningState } from '@metal3-ts/shared/host/states';
import type { MachineReconcilerDeps } from '../deps.ts';
import { InvalidConfigurationError } from '../errors.ts';
import { CLUSTER_NAME_LABEL, HOST_ANNOTATION } from '../names.ts';

export type AssociateOutcome =
  | { readonly kind: 'associated'; readonly host: BareMetalHost; readonly choice: 'owned' | 'reused' | 'picked' }
  /** Nothing to take now; `message` says what is awaited. */
  | { readonly kind: 'waiting'; readonly message: string; readonly retrySoon: boolean };

/** N-3/N-4: the machine's reuse name, or undefined when it has none (then no reserved host matches, N-5). */
export function reuseNameOf(deps: Pick<MachineReconcilerDeps, 'informers'>, machine: Readonly<Machine>): string | undefined {
  try {
    return nodeReuseName(machine, deps.informers.machineSets.store.list(machine.metadata.namespace));
  } catch {
    return undefined;
  }
}

/** The consumer the host selection works for. */
export function consumerOf(deps: Pick<MachineReconcilerDeps, 'informers'>, m3m: Readonly<Metal3Machine>, machine: Readonly<Machine> | undefined): HostConsumer {
  return metal3MachineConsumer(m3m, machine ? reuseNameOf(deps, machine) : undefined);
}

function describeSelector(m3m: Readonly<Metal3Machine>): string {
  const selector = m3m.spec?.hostSelector;
  const parts = [
    ...Object.entries(selector?.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`),
    ...(selector?.matchExpressions ?? []).map((e) => `${e.key} ${e.operator} (${(e.values ?? []).join(',')})`),
  ];
  return parts.length > 0 ? `matching ${parts.join(', ')}` : 'in the namespace';
}

/**
 * Chooses and claims a host (M-22, section 2), labels its BMC Secret (M-26) and records it on `m3m`
 * (M-41, in memory). Throws InvalidConfigurationError for an invalid host selector (H-3).
 */
export async function reconcileAssociate(deps: MachineReconcilerDeps, m3m: Metal3Machine, machine: Readonly<Machine>, cluster: Readonly<Cluster>): Promise<AssociateOutcome> {
  const consumer = consumerOf(deps, m3m, machine);
  const clusterName = machine.spec?.clusterName || cluster.metadata.name || '';
  let outcome;
  try {
    outcome = await acquireHost(
      deps.client,
      consumer,
      { labels: { [CLUSTER_NAME_LABEL]: clusterName } },
      {
        candidates: (c) => deps.inventory.candidates(c),
        onWrite: (host) => deps.inventory.noteWrite(host),
        ...(deps.random ? { random: deps.random } : {}),
      },
    );
  } catch (error) {
    if (error instanceof InvalidHostSelectorError) throw new InvalidConfigurationError(error.message, { cause: error });
    throw error;
  }
  if (!outcome.acquired) {
    switch (outcome.reason) {
      case 'none':
        return { kind: 'waiting', message: `No available host found: waiting for an available BareMetalHost ${describeSelector(m3m)}`, retrySoon: false };
      case 'reuse-pending':
        return {
          kind: 'waiting',
          message: `Found BareMetalHost(s) with nodeReuseLabelName in not-available state: waiting for ${hostKey(outcome.host)} (${provisioningState(outcome.host) || 'no state'})`,
          retrySoon: false,
        };
      case 'contended':
        return { kind: 'waiting', message: 'Every candidate host was taken by another machine meanwhile; choosing again', retrySoon: true };
    }
  }
  await labelCredentials(deps.client, outcome.host, clusterName);
  m3m.metadata.annotations = { ...(m3m.metadata.annotations ?? {}), [HOST_ANNOTATION]: hostKey(outcome.host) };
  return { kind: 'associated', host: outcome.host, choice: outcome.choice };
}

/**
 * M-26: the BMC credentials Secret gets the cluster-name label, so `clusterctl move` moves it with the
 * cluster. A merge patch: no read of the Secret (its contents are none of our business).
 * Changed from upstream (E-10): a missing Secret does not fail the association; there is nothing to move.
 */
export async function labelCredentials(client: Client, host: Readonly<BareMetalHost>, clusterName: string): Promise<void> {
  const name = host.spec?.bmc?.credentialsName;
  if (!name) return;
  try {
    await client.api(SecretResource, host.metadata.namespace).mergePatch(name, { metadata: { labels: { [CLUSTER_NAME_LABEL]: clusterName } } });
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}
