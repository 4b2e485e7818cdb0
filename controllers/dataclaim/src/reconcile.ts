// One reconcile of a Metal3DataClaim (research DT-9…DT-15, DC-2): read from the informers → guard →
// either release (deleting) or: our finalizer (a guarded JSON patch) → find or allocate the claim's
// Metal3Data → record it in the claim's status (resourceVersion-locked) → drop duplicates → record
// the index in the template's ledger. Every write is idempotent, so a reconcile interrupted anywhere
// finishes the job the next time; a claim that is already done costs no request.
import type { Api, Client } from '@metal3-ts/generated';
import { ignoreNotFound } from '@metal3-ts/generated/runtime/errors';
import {
  Metal3DataClaimResource,
  Metal3DataResource,
  type Metal3Data,
  type Metal3DataClaim,
  type Metal3DataTemplate,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { describeRefusal, refusalOf } from '@metal3-ts/shared/controller/refusal';
import { StepError } from '@metal3-ts/shared/controller/step-error';
import type { EventRecorder } from '@metal3-ts/shared/events/recorder';
import type { Logger } from '@metal3-ts/shared/log/logger';
import { ensureFinalizer } from '@metal3-ts/shared/meta/ensure-finalizer';
import type { Counter } from '@metal3-ts/shared/metrics/registry';
import { requestKey, type ReconcileContext, type ReconcileFn, type Request, type Result } from '@metal3-ts/shared/reconcile/reconcile';
import { dataOfClaim, takenIndexes } from './allocation.ts';
import { belongsToClaim, machineOwnerOf, templateKey } from './association.ts';
import { DataClaimWriteError, writeStep } from './errors.ts';
import { guard } from './guards.ts';
import type { TemplateLedgerWriter } from './ledger-writer.ts';
import { newMetal3DataFor } from './metal3data.ts';
import { DATA_CLAIM_FINALIZER, REASONS, UPSTREAM_MESSAGES, indexFromDataName } from './names.ts';
import { allocateIndex, createMetal3Data, type Allocation } from './phases/allocate.ts';
import { bindClaim, discardData } from './phases/bind.ts';
import { releaseClaim } from './phases/release.ts';
import { reportProblem, writeErrorMessage } from './phases/report.ts';
import type { IndexReservations } from './reservations.ts';
import { datasNamingClaim, lineageDatas, readScope, type DataClaimInformers } from './scope.ts';
import { ledgerHas } from './template-status.ts';

export interface ReconcilerDeps {
  /** Its writes should reach the informers (runMain's WriteThroughClient). */
  readonly client: Client;
  readonly informers: DataClaimInformers;
  readonly ledger: TemplateLedgerWriter;
  readonly reservations: IndexReservations;
  readonly events?: EventRecorder | undefined;
  /** Counts creates lost to another claim's Metal3Data (AlreadyExists), by template. */
  readonly conflicts?: Counter | undefined;
}

export function dataClaimReconciler(deps: ReconcilerDeps): ReconcileFn {
  return (request, context) => reconcileClaim(deps, request, context);
}

export async function reconcileClaim(deps: ReconcilerDeps, request: Request, { log }: ReconcileContext): Promise<Result> {
  const claim = deps.informers.claims.store.get(request);
  if (!claim) return {};
  const scope = readScope(deps.informers, claim);
  const claims = deps.client.api(Metal3DataClaimResource, request.namespace);
  const datas = deps.client.api(Metal3DataResource, request.namespace);
  const key = requestKey(request);
  const decision = guard(scope);
  switch (decision.kind) {
    case 'Done':
      return {};
    case 'Paused':
      log.debug('Metal3DataClaim, its template or its Cluster is paused');
      return {};
    case 'WaitForCluster':
      log.info('waiting for the Cluster of the Metal3DataTemplate', { cluster: decision.clusterName });
      await writeStep(key, 'claim status', () => writeErrorMessage(claims, claim, null));
      return {};
    case 'Invalid':
      // A claim that already has its Metal3Data keeps it, whatever happened to the template since
      // (not through a foreign record: that is never followed).
      if (decision.reason !== REASONS.foreignRenderedData && decision.reason !== REASONS.foreignReference && dataOfClaim(claim, datasNamingClaim(deps.informers, claim)).keep) return {};
      log.info('Metal3DataClaim cannot be served', { reason: decision.reason, message: decision.message });
      await writeStep(key, 'claim status', () => reportProblem(claims, deps.events, claim, decision.reason, decision.message));
      return {};
    case 'Release':
    case 'Allocate':
      try {
        if (decision.kind === 'Release') await releaseClaim({ claims, datas, informers: deps.informers, ledger: deps.ledger, events: deps.events }, claim, key, log);
        else await reconcileAllocation(deps, { claims, datas, key, log }, claim, decision.template);
      } catch (error) {
        await recordRefusal(claims, claim, error, log);
        throw error;
      }
      return {};
  }
}

/**
 * A request the apiserver refused (RBAC, validation) goes to status.errorMessage, naming verb and
 * resource; the worker loop retries and leaves the Warning event. A refused claim status write
 * cannot record itself: only the event shows it.
 */
async function recordRefusal(claims: Api<Metal3DataClaim>, claim: Readonly<Metal3DataClaim>, error: unknown, log: Logger): Promise<void> {
  const refusal = refusalOf(error);
  if (!refusal || (error instanceof StepError && error.step === 'claim status')) return;
  await writeErrorMessage(claims, claim, describeRefusal(refusal)).catch((writeError: unknown) => log.error('recording the failure failed', { error: writeError }));
}

interface Io {
  readonly claims: Api<Metal3DataClaim>;
  readonly datas: Api<Metal3Data>;
  readonly key: string;
  readonly log: Logger;
}

async function reconcileAllocation(deps: ReconcilerDeps, io: Io, cached: Readonly<Metal3DataClaim>, template: Readonly<Metal3DataTemplate>): Promise<void> {
  const { claims, datas, key, log } = io;
  let claim: Readonly<Metal3DataClaim> = cached;
  // DT-11: the finalizer first, so the claim cannot disappear with a Metal3Data left behind.
  const written = await writeStep(key, 'finalizer', () => ensureFinalizer(claims, cached as Metal3DataClaim, DATA_CLAIM_FINALIZER));
  if (written) claim = written;

  const { keep, duplicates } = dataOfClaim(claim, datasNamingClaim(deps.informers, claim));
  let data: Readonly<Metal3Data> | undefined = keep;
  let preferred: number | undefined;
  const recorded = claim.status?.renderedData?.name;
  if (!data && recorded) {
    // Recorded but not in our cache: another replica's fresh Metal3Data, or one that is gone.
    const live = await writeStep(key, 'Metal3Data read', () => ignoreNotFound(datas.get(recorded)));
    if (live && belongsToClaim(live, claim)) data = live;
    else if (!live) preferred = indexFromDataName(template.metadata.name ?? '', recorded);
  }

  if (!data) {
    const machine = machineOwnerOf(claim);
    if (!machine) {
      await writeStep(key, 'claim status', () => reportProblem(claims, deps.events, claim, REASONS.noMachineOwner, UPSTREAM_MESSAGES.noMachineOwner));
      return;
    }
    const allocation = await allocate(deps, io, claim, template, machine, preferred);
    data = allocation.data;
    log.info(allocation.adopted ? 'adopted the Metal3Data made for this claim' : 'allocated an index', {
      metal3Data: data.metadata.name,
      index: allocation.index,
      ...(allocation.conflicts ? { conflicts: allocation.conflicts } : {}),
    });
  }

  const bound = await writeStep(key, 'claim status', () => bindClaim(claims, claim, data));
  if (bound.kind !== 'Bound') {
    // Another writer bound the claim to another Metal3Data, or the claim is going: ours must go.
    log.info('giving back a Metal3Data the claim does not use', { metal3Data: data.metadata.name, outcome: bound.kind });
    await writeStep(key, 'Metal3Data release', () => discardData(datas, data));
    return;
  }
  for (const duplicate of duplicates) {
    if (duplicate.metadata.name === data.metadata.name) continue;
    log.info('giving back a second Metal3Data made for the same claim', { metal3Data: duplicate.metadata.name });
    await writeStep(key, 'Metal3Data release', () => discardData(datas, duplicate));
  }
  await recordInLedger(deps, key, claim, template, data);
}

async function allocate(
  deps: ReconcilerDeps,
  { datas, claims, key }: Io,
  claim: Readonly<Metal3DataClaim>,
  template: Readonly<Metal3DataTemplate>,
  machine: NonNullable<ReturnType<typeof machineOwnerOf>>,
  preferred: number | undefined,
): Promise<Allocation> {
  const namespace = template.metadata.namespace ?? '';
  const lineage = templateKey(namespace, template.metadata.name ?? '');
  try {
    const allocation = await allocateIndex(
      {
        taken: () => {
          const taken = takenIndexes({
            template: deps.informers.templates.store.get({ namespace, name: template.metadata.name ?? '' }) ?? template,
            datas: lineageDatas(deps.informers, template),
            claimExists: (name) => deps.informers.claims.store.get({ namespace, name }) !== undefined,
            claim,
          });
          for (const index of deps.reservations.reserved(lineage)) taken.add(index);
          return taken;
        },
        reserve: (index) => deps.reservations.reserve(lineage, index),
        create: (index) => createMetal3Data(datas, newMetal3DataFor({ template, claim, machine, index }), claim),
      },
      { preferred, template: lineage },
    );
    if (allocation.conflicts) deps.conflicts?.inc({ template: lineage }, allocation.conflicts);
    return allocation;
  } catch (error) {
    await reportProblem(claims, deps.events, claim, REASONS.dataWriteFailed, UPSTREAM_MESSAGES.createFailed).catch(() => undefined);
    throw new DataClaimWriteError(key, 'Metal3Data create', error);
  }
}

/** DT-14: the template's status.indexes / dataNames entry for the claim, unless it is there already. */
async function recordInLedger(
  deps: ReconcilerDeps,
  key: string,
  claim: Readonly<Metal3DataClaim>,
  template: Readonly<Metal3DataTemplate>,
  data: Readonly<Metal3Data>,
): Promise<void> {
  const namespace = template.metadata.namespace ?? '';
  const name = template.metadata.name ?? '';
  const claimName = claim.metadata.name ?? '';
  // The data's own template: a claim keeps the Metal3Data it has even if it came from the lineage.
  const entry = { index: data.spec?.index ?? 0, dataName: data.metadata.name ?? '' };
  const current = deps.informers.templates.store.get({ namespace, name }) ?? template;
  if (ledgerHas(current.status, claimName, entry)) return;
  const pending = deps.ledger.pending(namespace, name, claimName);
  if (pending && pending.index === entry.index && pending.dataName === entry.dataName) return;
  await writeStep(key, 'template status', () => deps.ledger.write(namespace, name, claimName, entry));
}
