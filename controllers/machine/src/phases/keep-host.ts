// Phases `settled` and `host`: keeping the associated host as the machine wants it (phases/host.ts)
// and recording what the machine shows of it. `settled` is M-19: a provisioned machine with its
// Node only keeps its host and releases strays; `host` waits for the data template's Secrets (M-36),
// writes the host (the deployment only once they are ready) and goes on to the Node once the host is
// provisioned. The BMC Secret label (M-26) comes last, so a refusal still leaves the addresses shown.
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { runStep } from '@metal3-ts/shared/controller/step-error';
import { isClaimedBy } from '@metal3-ts/baremetal/consumer';
import { hostKey } from '@metal3-ts/baremetal/host-patch';
import { isClaimed, isProvisioned } from '@metal3-ts/baremetal/states';
import type { MachineContext, PhaseResult } from '../context.ts';
import { HostTakenError } from '../errors.ts';
import { dataReferences, type MachineScope, reconciling, scopeClaimant } from '../scope.ts';
import { labelCredentials } from './associate.ts';
import { forgetStaleRecord } from './association.ts';
import { onFreshHost } from '@metal3-ts/baremetal/fresh-host';
import { type HostKept, reconcileHost } from './host.ts';
import { waitForMetadata } from './metadata.ts';
import { releaseStrayHosts } from './stray-hosts.ts';

/** Whether the machine is settled (M-19): provider ID, ready, a Node, and the host it holds. */
export function isSettled(scope: MachineScope): boolean {
  const { m3m, host } = scope;
  return !!m3m.spec?.providerID && !!m3m.status?.ready && !!reconciling(scope).machine.status?.nodeRef && !!host &&
    isClaimedBy(host, scopeClaimant(scope).consumer.ref);
}

export async function reconcileSettled(ctx: MachineContext, scope: MachineScope): Promise<PhaseResult> {
  // Only a host this machine holds: a record edited to name another host goes through association (M-40 changed).
  if (!isSettled(scope) || !scope.host) return undefined;
  scope.observed.association = { kind: 'Associated' };
  scope.observed.metadataAssociated = true;
  if (!scope.m3m.spec?.dataTemplate) scope.observed.data = { kind: 'External' };
  const kept = await runStep(scope.object, 'host', () => keepHost(ctx, scope, scope.host!, true));
  if (kept === 'taken') return runStep(scope.object, 'forget', () => forgetStaleRecord(ctx, scope));
  if (!kept) return {};
  await runStep(scope.object, 'strays', () => releaseStrayHosts(ctx.deps, kept, scopeClaimant(scope)));
  return {};
}

export async function reconcileHostUpdate(ctx: MachineContext, scope: MachineScope): Promise<PhaseResult> {
  if (!scope.host) return ctx.safetyNet;
  const data = waitForMetadata(ctx.deps, scope.m3m, dataReferences(scope));
  if (data.ready && scope.m3m.spec?.dataTemplate) scope.observed.data = { kind: 'Ready' };
  if (!data.ready) scope.observed.data = { kind: 'Waiting', message: data.message };
  const host = await keepHost(ctx, scope, scope.host, data.ready);
  if (host === 'taken') return runStep(scope.object, 'forget', () => forgetStaleRecord(ctx, scope));
  // A host deleted under us: its deletion event brings the machine back to forget the record.
  if (!host) return {};
  return data.ready && isProvisioned(host) ? undefined : ctx.safetyNet;
}

/**
 * Writes the host (again on a fresh copy after a conflict), records the machine's addresses, tells
 * dropped ones once, and labels the BMC Secret. Undefined when the host is gone; `taken` when the
 * fresh copy shows another machine's claim won the race (scope.host is then that copy, for
 * forgetStaleRecord).
 */
async function keepHost(
  ctx: MachineContext,
  scope: MachineScope,
  host: Readonly<BareMetalHost>,
  deploy: boolean,
): Promise<Readonly<BareMetalHost> | 'taken' | undefined> {
  const claimant = scopeClaimant(scope);
  let kept;
  try {
    kept = await onFreshHost<HostKept | { readonly taken: Readonly<BareMetalHost> }>(
      ctx.deps.client,
      host,
      'keeping it as the machine wants it',
      (current, attempt) => {
        if (attempt > 1 && isClaimed(current) && !isClaimedBy(current, claimant.consumer.ref)) return Promise.resolve({ taken: current });
        return reconcileHost(ctx.deps, scope.m3m, dataReferences(scope), current, claimant, deploy);
      },
    );
  } catch (error) {
    if (error instanceof HostTakenError) scope.log.error(error.message);
    throw error;
  }
  if (!kept) return undefined;
  if ('taken' in kept) {
    scope.host = kept.taken;
    return 'taken';
  }
  scope.host = kept.host;
  scope.observed.addresses = kept.addresses;
  reportDroppedAddresses(ctx, scope, kept.host, kept.droppedAddresses);
  // M-26 on every pass (a claim made here, a label write refused before): a request only while the
  // machine does not record the label as landed.
  const labelled = await labelCredentials(ctx.deps.client, scope.m3m, kept.host, claimant.clusterName, ctx.labelledSecrets);
  if (labelled) scope.observed.secretLabelled = labelled;
  return kept.host;
}

/** M-31 (changed): what the host reported but the machine did not copy, told once per problem (log line and Warning event). */
function reportDroppedAddresses(ctx: MachineContext, scope: MachineScope, host: Readonly<BareMetalHost>, dropped: readonly string[]): void {
  if (dropped.length === 0) {
    ctx.reportedDrops.delete(scope.key);
    return;
  }
  const shown = dropped.length > 5 ? [...dropped.slice(0, 5), `${dropped.length - 5} more`] : dropped;
  const message = `Not copied from the inspection data of BareMetalHost ${hostKey(host)}: ${shown.join('; ')}`;
  if (ctx.reportedDrops.get(scope.key) === message) return;
  ctx.reportedDrops.set(scope.key, message);
  scope.log.warn(message);
  ctx.deps.events?.warning(scope.m3m, 'HostAddressesDropped', message);
}
