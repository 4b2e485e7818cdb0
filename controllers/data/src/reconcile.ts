// One reconcile of a Metal3Data (research §1.6): read from the informers → guard → finalizer (a
// guarded JSON patch) → snapshot → render phase → status and the Secret names in one patch.
// Deletion waits for the claim to be gone, releases the IP claims and removes the finalizer.
import type { Api, Client } from '@metal3-ts/generated';
import { SecretResource } from '@metal3-ts/generated/core/v1';
import { isAlreadyExists, isNotFound } from '@metal3-ts/generated/runtime/errors';
import { Metal3DataResource, type Metal3Data, type Metal3DataTemplate } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { EventRecorder } from '@metal3-ts/shared/events/recorder';
import type { Logger } from '@metal3-ts/shared/log/logger';
import { ensureFinalizer, removeFinalizerGuarded } from '@metal3-ts/shared/meta/ensure-finalizer';
import { PatchHelper } from '@metal3-ts/shared/patch/patch-helper';
import { requestKey, type ReconcileContext, type ReconcileFn, type Request, type Result } from '@metal3-ts/shared/reconcile/reconcile';
import { isGoneDuringPatch, writeStep } from './errors.ts';
import { clusterNameOf, guard } from './guards.ts';
import { METAL3_DATA_FINALIZER, REQUEUE_AFTER_MS } from './names.ts';
import { allocateAddresses } from './phases/allocate.ts';
import { findAssociation, findMachineAndHost } from './phases/association.ts';
import { releaseClaims } from './phases/release.ts';
import { referencedPools, renderTargets } from './phases/render.ts';
import { renderedSecret, secretClusterName, secretTargets, type SecretTarget } from './phases/secrets.ts';
import { associationLookups, ipamStores, machineLookups, releaseCandidates, type DataInformers } from './scope.ts';
import { applyOutcome, describeInvalid, MISSING_CLUSTER_LABEL_MESSAGE, type DataOutcome } from './status.ts';
import type { RelatedObjects, RenderContext } from './render/index.ts';
import type { Step } from './steps.ts';

export interface DataReconcilerDeps {
  /** Its writes should reach the informers (runMain's WriteThroughClient). */
  readonly client: Client;
  readonly informers: DataInformers;
  readonly events?: EventRecorder | undefined;
  /** `--enableBMHNameBasedPreallocation` (D-17). */
  readonly preallocation?: boolean;
  /** Safety-net wait behind the watches (default 30 s, §0.4). */
  readonly requeueAfterMs?: number;
}

/** Writable copy of a cached (frozen) object. */
const copy = (data: Readonly<Metal3Data>): Metal3Data => structuredClone(data) as Metal3Data;

/** A step that did not find what it needed, as the outcome the status shows. */
function stopped(step: Exclude<Step<unknown>, { kind: 'Found' }>): DataOutcome {
  return step.kind === 'Wait'
    ? { kind: 'Waiting', reason: step.reason }
    : { kind: 'Invalid', cause: step.cause, message: step.message, ...(step.field !== undefined ? { field: step.field } : {}) };
}

export function metal3DataReconciler(deps: DataReconcilerDeps): ReconcileFn {
  const { client, informers } = deps;
  const requeueAfterMs = deps.requeueAfterMs ?? REQUEUE_AFTER_MS;
  const preallocation = deps.preallocation ?? false;

  return async (request: Request, ctx: ReconcileContext): Promise<Result> => {
    const cached = informers.datas.store.get(request);
    if (!cached) return {};
    const api = client.api(Metal3DataResource, request.namespace);
    const what = `Metal3Data ${requestKey(request)}`;
    const clusterName = clusterNameOf(cached);
    const cluster = clusterName ? informers.clusters.store.get({ namespace: request.namespace, name: clusterName }) : undefined;
    const decision = guard(cached, cluster);
    switch (decision.kind) {
      case 'NotOurs':
        return {};
      case 'MissingClusterLabel':
        await writeOutcome(api, what, copy(cached), { kind: 'Invalid', cause: 'AssociationInvalid', message: MISSING_CLUSTER_LABEL_MESSAGE });
        return {};
      case 'WaitForCluster':
        ctx.log.info('Waiting for the Cluster', { cluster: decision.clusterName });
        return {};
      case 'Paused':
        ctx.log.info('Reconciliation is paused for this object');
        return {};
      case 'Delete':
        return reconcileDelete(api, what, cached, ctx.log);
      case 'Reconcile':
        return reconcileNormal(api, what, cached, ctx.log);
    }
  };

  async function reconcileNormal(api: Api<Metal3Data>, what: string, cached: Readonly<Metal3Data>, log: Logger): Promise<Result> {
    let data = copy(cached);
    const written = await writeStep(what, 'finalizer', () => ensureFinalizer(api, data, METAL3_DATA_FINALIZER));
    if (written) data = copy(written);
    const before = copy(data);
    const patch = new PatchHelper(data, api);
    let outcome: DataOutcome;
    try {
      outcome = await renderSecrets(data, what);
    } catch (error) {
      // Upstream records the cause of any failure; the write is retried with backoff.
      applyOutcome(data, { kind: 'Failed', message: error instanceof Error ? error.message : String(error) });
      await patchStatus(patch, data, what).catch((patchError: unknown) => log.error('recording the failure failed', { error: patchError }));
      throw error;
    }
    applyOutcome(data, outcome);
    report(before, data, outcome, log);
    await patchStatus(patch, data, what);
    return outcome.kind === 'Waiting' ? { requeueAfterMs } : {};
  }

  /** D-9: everything between the guards and the status. Mutates `data.spec` (Secret names, D-10). */
  async function renderSecrets(data: Metal3Data, what: string): Promise<DataOutcome> {
    if (!data.spec?.template?.name) return { kind: 'Untouched' };
    const association = findAssociation(data, associationLookups(informers));
    if (association.kind !== 'Found') return stopped(association);
    const { template, metal3Machine } = association.value;
    const targets = secretTargets(data, template, metal3Machine);
    const missing = await missingSecrets(data, targets, what);
    if (missing.length === 0) return { kind: 'Ready', created: [] };

    const related = findMachineAndHost(metal3Machine, machineLookups(informers));
    if (related.kind !== 'Found') return stopped(related);
    // The renderer gets its own copies: cached objects are frozen and shared.
    const objects = structuredClone({ metal3Machine, machine: related.value.machine, host: related.value.host }) as RelatedObjects;
    const pools = referencedPools(template, objects);
    if (pools.kind !== 'Found') return stopped(pools);
    const allocations = await writeStep(what, 'ip claims', () =>
      allocateAddresses({ client, stores: ipamStores(informers), preallocation }, data, pools.value, related.value.host.metadata.name ?? ''),
    );
    if (allocations.kind !== 'Found') return stopped(allocations);

    const context: RenderContext = {
      ...objects,
      data: structuredClone(data),
      template: structuredClone(template) as Metal3DataTemplate,
      allocationFor: (pool) => allocations.value.get(pool.name),
    };
    const contents = renderTargets(template, context, targets);
    if (contents.kind !== 'Found') return stopped(contents);
    const created: string[] = [];
    const clusterName = secretClusterName(template);
    for (const target of missing) {
      const secret = renderedSecret(target, contents.value.get(target.kind) ?? '', data, clusterName);
      const wrote = await writeStep(what, 'secret create', async () => {
        try {
          await client.api(SecretResource, data.metadata.namespace).create(secret);
          return true;
        } catch (error) {
          // D-12 (changed): written once, never rewritten, even when it appeared meanwhile.
          if (isAlreadyExists(error)) return false;
          throw error;
        }
      });
      if (wrote) created.push(target.name);
    }
    return { kind: 'Ready', created };
  }

  /** D-9 step 7: the targets whose Secret does not exist (read live: Secrets are not cached). */
  async function missingSecrets(data: Readonly<Metal3Data>, targets: readonly SecretTarget[], what: string): Promise<SecretTarget[]> {
    const secrets = client.api(SecretResource, data.metadata.namespace);
    const missing: SecretTarget[] = [];
    for (const target of targets) {
      const exists = await writeStep(what, 'secret read', async () => {
        try {
          await secrets.get(target.name);
          return true;
        } catch (error) {
          if (isNotFound(error)) return false;
          throw error;
        }
      });
      if (!exists) missing.push(target);
    }
    return missing;
  }

  async function reconcileDelete(api: Api<Metal3Data>, what: string, cached: Readonly<Metal3Data>, log: Logger): Promise<Result> {
    const claimName = cached.spec?.claim?.name;
    // D-7: the claim's own deletion (by the allocation side) comes first; its delete event wakes us.
    if (claimName && informers.claims.store.get({ namespace: cached.metadata.namespace, name: claimName })) {
      log.info('Waiting for the Metal3DataClaim to be deleted before releasing IP addresses', { claim: claimName });
      return { requeueAfterMs };
    }
    const released = await writeStep(what, 'ip claim release', () => releaseClaims(client, cached, releaseCandidates(informers, cached)));
    if (released.length > 0) {
      log.info('Released IP claims', { claims: released });
      deps.events?.normal(cached, 'IPClaimsReleased', `Released IP claims ${released.join(', ')}`);
    }
    await writeStep(what, 'finalizer removal', () => removeFinalizerGuarded(api, copy(cached), METAL3_DATA_FINALIZER));
    return {};
  }

  /** The status alone (guards that stop before the finalizer). */
  async function writeOutcome(api: Api<Metal3Data>, what: string, data: Metal3Data, outcome: DataOutcome): Promise<void> {
    const before = copy(data);
    const patch = new PatchHelper(data, api);
    applyOutcome(data, outcome);
    report(before, data, outcome, undefined);
    await patchStatus(patch, data, what);
  }

  async function patchStatus(patch: PatchHelper<Metal3Data>, data: Metal3Data, what: string): Promise<void> {
    try {
      await writeStep(what, 'status', () => patch.patch(data));
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
