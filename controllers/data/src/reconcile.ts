// One reconcile of a Metal3Data (research §1.6): the scope read once from the informers → guard →
// finalizer (a guarded JSON patch) → snapshot → createSecrets phase → deriveStatus → status and the
// Secret names in one patch.
// Deletion waits for the claim to be gone, releases the IP claims and removes the finalizer.
import type { Api, Client } from '@metal3-ts/generated';
import type { Metal3Data } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { describeRefusal, refusalOf } from '@metal3-ts/shared/controller/refusal';
import type { EventRecorder } from '@metal3-ts/shared/events/recorder';
import type { Logger } from '@metal3-ts/shared/log/logger';
import { ensureFinalizer, removeFinalizerGuarded } from '@metal3-ts/shared/meta/ensure-finalizer';
import { PatchHelper } from '@metal3-ts/shared/patch/patch-helper';
import type { ReconcileContext, ReconcileFn, Request, Result } from '@metal3-ts/shared/reconcile/reconcile';
import { runStep } from '@metal3-ts/shared/controller/step-error';
import { isGoneDuringPatch } from './errors.ts';
import { guard } from './guards.ts';
import { METAL3_DATA_FINALIZER, REQUEUE_AFTER_MS } from './names.ts';
import { releaseClaims } from './phases/release.ts';
import { createSecrets, type CreateSecretsDeps } from './phases/create-secrets.ts';
import { type DataInformers, readScope, releaseCandidates } from './scope.ts';
import type { SecretConflictWatch } from './secret-conflict-watch.ts';
import { type DataOutcome, deriveStatus, describeInvalid, MISSING_CLUSTER_LABEL_MESSAGE } from './status.ts';
import { endsQuietly } from './quiet-exit.ts';

export interface DataReconcilerDeps {
  /** Its writes should reach the informers (runMain's WriteThroughClient). */
  readonly client: Client;
  readonly informers: DataInformers;
  readonly events?: EventRecorder | undefined;
  /** `--enableBMHNameBasedPreallocation` (D-17). */
  readonly preallocation?: boolean;
  /** Safety-net wait behind the watches (default 30 s, §0.4). */
  readonly requeueAfterMs?: number;
  /** Watches the Secret blocking a Metal3Data (a SecretConflict) until it is no longer in the way. */
  readonly conflicts?: SecretConflictWatch | undefined;
}

/** Writable copy of a cached (frozen) object. */
const copy = (data: Readonly<Metal3Data>): Metal3Data => structuredClone(data) as Metal3Data;

export function metal3DataReconciler(deps: DataReconcilerDeps): ReconcileFn {
  const { client, informers } = deps;
  const requeueAfterMs = deps.requeueAfterMs ?? REQUEUE_AFTER_MS;
  const phaseDeps: CreateSecretsDeps = { client, informers, preallocation: deps.preallocation ?? false };

  return async (request: Request, ctx: ReconcileContext): Promise<Result> => {
    // The Secrets blocking this Metal3Data after this pass; every other exit (gone, paused, invalid,
    // deleting, a failed request) ends the name watches it held.
    const blocking: string[] = [];
    try {
      return await reconcileOne(request, ctx, blocking);
    } finally {
      deps.conflicts?.blockedBy(request, blocking);
    }
  };

  async function reconcileOne(request: Request, ctx: ReconcileContext, blocking: string[]): Promise<Result> {
    const scope = readScope(informers, client, request);
    if (!scope) return {};
    const { cached, api, what } = scope;
    const decision = guard(cached, scope.cluster);
    if (endsQuietly(decision, ctx.log)) return {};
    switch (decision.kind) {
      case 'MissingClusterLabel':
        await writeOutcome(api, what, copy(cached), { kind: 'Invalid', cause: 'AssociationInvalid', message: MISSING_CLUSTER_LABEL_MESSAGE });
        return {};
      case 'Delete':
        return reconcileDelete(api, what, cached, ctx.log);
      case 'Reconcile':
        return reconcileNormal(api, what, cached, ctx.log, blocking);
    }
  }

  async function reconcileNormal(api: Api<Metal3Data>, what: string, cached: Readonly<Metal3Data>, log: Logger, blocking: string[]): Promise<Result> {
    let data = copy(cached);
    try {
      const written = await runStep(what, 'finalizer', () => ensureFinalizer(api, copy(data), METAL3_DATA_FINALIZER));
      if (written) data = copy(written);
    } catch (error) {
      if (!refusalOf(error)) throw error;
      return recordFailure(new PatchHelper(data, api), data, what, error, log);
    }
    const patch = new PatchHelper(data, api);
    const before = copy(data);
    let outcome: DataOutcome;
    try {
      outcome = await createSecrets(phaseDeps, data, what);
    } catch (error) {
      return recordFailure(patch, data, what, error, log);
    }
    // A Secret in the way carries no label of ours: watched by name while it blocks us.
    if (outcome.kind === 'SecretConflict') blocking.push(outcome.secret);
    deriveStatus(data, outcome);
    report(before, data, outcome, log);
    await patchStatus(patch, data, what);
    return outcome.kind === 'Waiting' || outcome.kind === 'SecretConflict' ? { requeueAfterMs } : {};
  }

  async function reconcileDelete(api: Api<Metal3Data>, what: string, cached: Readonly<Metal3Data>, log: Logger): Promise<Result> {
    const claimName = cached.spec?.claim?.name;
    // D-7: the claim's own deletion (by the allocation side) comes first; its delete event wakes us.
    if (claimName && informers.claims.store.get({ namespace: cached.metadata.namespace, name: claimName })) {
      log.info('Waiting for the Metal3DataClaim to be deleted before releasing IP addresses', { claim: claimName });
      return { requeueAfterMs };
    }
    try {
      const released = await runStep(what, 'ip claim release', () => releaseClaims(client, cached, releaseCandidates(informers, cached)));
      if (released.length > 0) {
        log.info('Released IP claims', { claims: released });
        deps.events?.normal(cached, 'IPClaimsReleased', `Released IP claims ${released.join(', ')}`);
      }
      await runStep(what, 'finalizer removal', () => removeFinalizerGuarded(api, copy(cached), METAL3_DATA_FINALIZER));
    } catch (error) {
      // A refused release would otherwise hold the deletion with nothing on the object saying why.
      if (!refusalOf(error)) throw error;
      const data = copy(cached);
      return recordFailure(new PatchHelper(data, api), data, what, error, log);
    }
    return {};
  }

  /**
   * Upstream records the cause of any failure in status.errorMessage; a refused request is described
   * by verb and resource. The error is rethrown: the worker retries it and, when refused, leaves a
   * Warning event.
   */
  async function recordFailure(patch: PatchHelper<Metal3Data>, data: Metal3Data, what: string, error: unknown, log: Logger): Promise<never> {
    const refusal = refusalOf(error);
    deriveStatus(data, { kind: 'Failed', message: refusal ? describeRefusal(refusal) : error instanceof Error ? error.message : String(error) });
    await patchStatus(patch, data, what).catch((patchError: unknown) => log.error('recording the failure failed', { error: patchError }));
    throw error;
  }

  /** The status alone (guards that stop before the finalizer). */
  async function writeOutcome(api: Api<Metal3Data>, what: string, data: Metal3Data, outcome: DataOutcome): Promise<void> {
    const before = copy(data);
    const patch = new PatchHelper(data, api);
    deriveStatus(data, outcome);
    report(before, data, outcome, undefined);
    await patchStatus(patch, data, what);
  }

  async function patchStatus(patch: PatchHelper<Metal3Data>, data: Metal3Data, what: string): Promise<void> {
    try {
      await runStep(what, 'status', () => patch.patch(data));
    } catch (error) {
      if (!isGoneDuringPatch(error)) throw error;
    }
  }

  /** Events and logs for what changed: a new failure message, Secrets written. */
  function report(before: Readonly<Metal3Data>, data: Metal3Data, outcome: DataOutcome, log: Logger | undefined): void {
    switch (outcome.kind) {
      case 'Invalid': {
        const message = describeInvalid(outcome);
        if (before.status?.errorMessage !== message) deps.events?.warning(data, outcome.cause, message);
        log?.info('Metal3Data cannot be rendered', { reason: outcome.cause, message });
        return;
      }
      case 'SecretConflict':
        if (before.status?.errorMessage !== outcome.message) deps.events?.warning(data, 'SecretConflict', outcome.message);
        log?.info('Metal3Data cannot be rendered', { reason: 'SecretConflict', message: outcome.message });
        return;
      case 'Waiting':
        log?.info(outcome.reason);
        return;
      case 'Ready':
        if (outcome.created.length > 0) deps.events?.normal(data, 'SecretsRendered', `Rendered Secrets ${outcome.created.join(', ')}`);
        return;
      default:
        return;
    }
  }
}
