// The watch of rendered Secrets (issue 21 point 0): a Secret this controller rendered that is deleted
// or changed wakes the Metal3Data it belongs to, so one that disappears is rendered again within
// seconds instead of never, and a leftover of a former Metal3Data that the garbage collector deletes
// wakes the new one waiting for its name. Least privilege in what is held, not only in what is
// granted: the informer selects by the label every rendered Secret carries (RENDERED_SECRET_LABEL),
// so no other Secret is listed, and keeps only metadata (the data is dropped before caching). It is a
// selected informer of the shared factory, so a refused list or watch of Secrets fails /readyz like
// any other informer's (issue 21 point 3).
import { type Secret, SecretResource } from '@metal3-ts/generated/core/v1';
import type { Metal3Data } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { Informer, SelectedInformerSource, Store } from '@metal3-ts/shared/cache/types';
import { type EventSource, informerSource } from '@metal3-ts/shared/controller/source';
import { distinctRequests, enqueueFromMap } from '@metal3-ts/shared/controller/handlers';
import { getControllerOf } from '@metal3-ts/shared/meta/owner-references';
import type { Request } from '@metal3-ts/shared/reconcile/reconcile';
import { DATA_BY_SECRET_INDEX } from './mappers.ts';
import { RENDERED_SECRET_LABEL } from './names.ts';
import { isMetal3DataRef } from './decisions/secret-ownership.ts';

/** What is cached of a rendered Secret: everything but its content (and managedFields). */
export function metadataOnly(secret: Secret): Secret {
  delete secret.data;
  delete secret.stringData;
  delete secret.metadata.managedFields;
  return secret;
}

/** The Metal3Data a rendered Secret concerns: its controller, and any Metal3Data whose spec names it. */
export function secretToDatas(datas: Store<Metal3Data>, secret: Readonly<Secret>): Request[] {
  const namespace = secret.metadata.namespace ?? '';
  const controller = getControllerOf(secret);
  const owners = controller && isMetal3DataRef(controller) ? [{ namespace, name: controller.name }] : [];
  const naming = datas.byIndex(DATA_BY_SECRET_INDEX, `${namespace}/${secret.metadata.name ?? ''}`).map((d) => ({ namespace, name: d.metadata.name ?? '' }));
  return distinctRequests([...owners, ...naming]);
}

/** The label-selected, metadata-only Secret informer of `source` (shared by every caller). */
export function renderedSecretInformer(source: SelectedInformerSource): Informer<Secret> {
  return source.selectedInformerFor(SecretResource, { labelSelector: RENDERED_SECRET_LABEL, transform: metadataOnly, transformName: 'metadataOnly' });
}

/** The event source of rendered Secrets: each change wakes the Metal3Data it concerns. */
export function renderedSecretWatch(secrets: Informer<Secret>, datas: Store<Metal3Data>): EventSource {
  return informerSource(secrets, enqueueFromMap((secret) => secretToDatas(datas, secret)));
}
