// Phases `associate`, `forget` and `strays`: from a machine without a host to a machine holding
// exactly one (M-20…M-27, M-40, M-41; the locks are phases/associate.ts's). Every wait here ends
// with an event: the Machine's bootstrap data turning ready, a host appearing or changing, or our
// own write removing a host record (the Metal3Machine's metadata changes, so its watch passes it).
import { hostKey } from '@metal3-ts/baremetal/host-patch';
import { releaseHost } from '@metal3-ts/baremetal/release';
import { isClaimed } from '@metal3-ts/baremetal/states';
import type { MachineContext, PhaseResult } from '../context.ts';
import { InvalidConfigurationError } from '../errors.ts';
import { isBootstrapReady } from '../guards.ts';
import { userDataFor } from '../host-spec.ts';
import { HOST_ANNOTATION } from '../names.ts';
import { adoptWrite, dataReferences, hostAnnotationProblem, type MachineScope, reconciling, scopeClaimant } from '../scope.ts';
import { reconcileAssociate } from './associate.ts';
import { staleHostRecord } from './host.ts';
import { onFreshHost } from '@metal3-ts/baremetal/fresh-host';
import { forgetHost } from './host-record.ts';
import { releaseStrayHosts } from './stray-hosts.ts';

/** M-20, M-21…M-27: waits for bootstrap data, then chooses, records and claims a host when the machine has none. */
export async function reconcileAssociation(ctx: MachineContext, scope: MachineScope): Promise<PhaseResult> {
  const { machine } = reconciling(scope);
  const m3m = scope.m3m;
  if (!isBootstrapReady(machine)) {
    scope.observed.association = { kind: 'Bootstrap' };
    return {};
  }
  const refs = dataReferences(scope);
  if (!refs.userData) {
    const userData = userDataFor(m3m, machine);
    if (userData) refs.userData = userData;
  }
  const problem = hostAnnotationProblem(m3m);
  if (problem) throw new InvalidConfigurationError(problem);
  // M-40 (changed): a record of a host nobody holds goes through selection like no record at all.
  const unclaimed = scope.host && !isClaimed(scope.host) ? scope.host : undefined;
  if (m3m.metadata.annotations?.[HOST_ANNOTATION] && !unclaimed) return undefined;
  const outcome = await reconcileAssociate(ctx.deps, m3m, {
    claimant: scopeClaimant(scope),
    refs,
    labelled: ctx.labelledSecrets,
    claiming: ctx.claiming,
    recorded: unclaimed,
    log: scope.log,
  });
  switch (outcome.kind) {
    case 'waiting':
      if (outcome.written) adoptWrite(scope, outcome.written);
      scope.observed.association = { kind: 'Host', message: outcome.message };
      // A lost claim removed our record: that write is the event to choose again on.
      return outcome.retrySoon ? {} : ctx.safetyNet;
    case 'lost':
      // Another reconcile's record (or the deletion) is an event of this machine too.
      scope.log.info(outcome.message);
      return {};
    case 'associated':
      if (outcome.recorded) adoptWrite(scope, outcome.recorded);
      if (outcome.labelled) scope.observed.secretLabelled = outcome.labelled;
      scope.host = outcome.host;
      ctx.deps.events?.normal(m3m, 'HostAssociated', `Associated with BareMetalHost ${hostKey(outcome.host)} (${outcome.choice})`);
      return undefined;
    case 'kept':
      return undefined;
  }
}

/**
 * A record of a host that is gone, or that another machine took before our claim (a crash between
 * record and claim, a hand edit): forget it and choose again once the removal's event arrives.
 * Without a host (nothing recorded yet: a host appearing wakes us) the pass ends here.
 */
export async function reconcileStaleRecord(ctx: MachineContext, scope: MachineScope): Promise<PhaseResult> {
  const forgotten = await forgetStaleRecord(ctx, scope);
  if (forgotten) return forgotten;
  if (!scope.host) return ctx.safetyNet;
  scope.observed.association = { kind: 'Associated' };
  return undefined;
}

/** One machine, one host: any other host naming this machine is released (stray-hosts.ts). */
export async function reconcileStrays(ctx: MachineContext, scope: MachineScope): Promise<PhaseResult> {
  if (!scope.host) return ctx.safetyNet;
  const strays = await releaseStrayHosts(ctx.deps, scope.host, scopeClaimant(scope));
  if (strays.length > 0) scope.log.info(`Releasing hosts this machine holds besides ${hostKey(scope.host)}: ${strays.join(', ')}`);
  return undefined;
}

/**
 * Forgets the record if it names a host the machine cannot have (scope.host as it is now: the cached
 * copy, or a fresh one a refused host write read); `{}` then, undefined when the record stands.
 */
export async function forgetStaleRecord(ctx: MachineContext, scope: MachineScope): Promise<PhaseResult> {
  const { consumer } = scopeClaimant(scope);
  const stale = staleHostRecord(scope.m3m, scope.host, consumer);
  if (!stale) return undefined;
  // A host someone else took keeps no owner reference to us (the garbage collector would delete it with us).
  if (scope.host) {
    await onFreshHost(ctx.deps.client, scope.host, 'dropping our owner reference', (host) =>
      releaseHost(ctx.deps.client, host, { consumer: consumer.ref }, {
        onWrite: (h) => ctx.deps.inventory.noteWrite(h),
      }));
  }
  const written = await forgetHost(scope.api, scope.base, stale.recorded);
  if (written) adoptWrite(scope, written);
  scope.observed.association = { kind: 'Host', message: stale.message };
  return {};
}
