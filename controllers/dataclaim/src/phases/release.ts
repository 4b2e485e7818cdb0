// DT-15: a claim being deleted gives back its Metal3Data (our finalizer off it, then deleted; the
// Metal3Data controller's own finalizer keeps it until its IP addresses are released, D-7) and its
// ledger entry on the template; then our finalizer leaves the claim. The Metal3Machine finalizer on
// the claim is the Metal3Machine controller's (DC-4) and stays. The index becomes free once the old
// Metal3Data is really gone: until then its name is taken (E-34).
import type { Api } from '@metal3-ts/generated';
import { isNotFound } from '@metal3-ts/generated/runtime/errors';
import type { Metal3Data, Metal3DataClaim } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { EventRecorder } from '@metal3-ts/shared/events/recorder';
import type { Logger } from '@metal3-ts/shared/log/logger';
import { removeFinalizerGuarded } from '@metal3-ts/shared/meta/ensure-finalizer';
import { belongsToClaim, templateRefOf } from '../association.ts';
import { DataClaimWriteError, writeStep } from '../errors.ts';
import type { TemplateLedgerWriter } from '../ledger-writer.ts';
import { DATA_CLAIM_FINALIZER, REASONS, UPSTREAM_MESSAGES } from '../names.ts';
import { datasNamingClaim, type DataClaimInformers } from '../scope.ts';
import { ledgerEntryOf } from '../template-status.ts';
import { discardData } from './bind.ts';
import { reportProblem } from './report.ts';

export interface ReleaseDeps {
  readonly claims: Api<Metal3DataClaim>;
  readonly datas: Api<Metal3Data>;
  readonly informers: DataClaimInformers;
  readonly ledger: TemplateLedgerWriter;
  readonly events?: EventRecorder | undefined;
}

export async function releaseClaim(deps: ReleaseDeps, claim: Readonly<Metal3DataClaim>, key: string, log: Logger): Promise<void> {
  const datas = await claimDatas(deps, claim);
  for (const data of datas) {
    try {
      await discardData(deps.datas, data);
    } catch (error) {
      await reportProblem(deps.claims, deps.events, claim, REASONS.dataWriteFailed, UPSTREAM_MESSAGES.deleteFailed).catch(() => undefined);
      throw new DataClaimWriteError(key, 'Metal3Data release', error);
    }
  }
  if (datas.length === 0) log.info('no Metal3Data to release for this claim');

  const ref = templateRefOf(claim);
  if (ref.kind === 'Valid') {
    const template = deps.informers.templates.store.get(ref);
    if (template && ledgerEntryOf(template, claim.metadata.name ?? '') !== null) {
      await writeStep(key, 'template status', () => deps.ledger.write(ref.namespace, ref.name, claim.metadata.name ?? '', null));
    }
  }

  // The claim outlives this reconcile only while another finalizer (the Metal3Machine's) holds it:
  // then its status must stop naming a Metal3Data that is going away.
  const others = (claim.metadata.finalizers ?? []).filter((f) => f !== DATA_CLAIM_FINALIZER);
  if (others.length > 0 && claim.status?.renderedData) {
    await writeStep(key, 'claim status', async () => {
      try {
        await deps.claims.mergePatchStatus(claim.metadata.name ?? '', { status: { renderedData: null } });
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    });
  }
  await writeStep(key, 'finalizer removal', () => removeFinalizerGuarded(deps.claims, claim as Metal3DataClaim, DATA_CLAIM_FINALIZER));
  log.info('released the claim', { metal3Data: datas.map((d) => d.metadata.name) });
}

/** This claim's Metal3Data: by the index, plus the one its status names if the cache has not seen it. */
async function claimDatas(deps: ReleaseDeps, claim: Readonly<Metal3DataClaim>): Promise<Readonly<Metal3Data>[]> {
  const mine = datasNamingClaim(deps.informers, claim).filter((d) => belongsToClaim(d, claim));
  const named = claim.status?.renderedData?.name;
  if (!named || mine.some((d) => d.metadata.name === named)) return [...mine];
  const namespace = claim.metadata.namespace ?? '';
  let data: Readonly<Metal3Data> | undefined = deps.informers.datas.store.get({ namespace, name: named });
  if (!data) {
    try {
      data = await deps.datas.get(named);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
  return data && belongsToClaim(data, claim) ? [...mine, data] : [...mine];
}
