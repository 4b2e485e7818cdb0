// The watch of rendered Secrets (issue 21 point 0): a Secret this controller rendered that is deleted
// or changed wakes the Metal3Data it belongs to, so one that disappears is rendered again within
// seconds instead of never. Least privilege in what is held, not only in what is granted: the watch
// selects by the label every rendered Secret carries (RENDERED_SECRET_LABEL), so no other Secret is
// listed, and keeps only metadata (the data is dropped before caching), so no Secret content stays
// in memory. It is its own informer (the shared factory has one unselected informer per kind), run
// while the controller runs.
import type { Client } from '@metal3-ts/generated';
import { SecretResource, type Secret } from '@metal3-ts/generated/core/v1';
import type { Metal3Data } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { SharedInformer } from '@metal3-ts/shared/cache/informer';
import type { Store } from '@metal3-ts/shared/cache/types';
import type { EventSource } from '@metal3-ts/shared/controller/source';
import { distinctRequests } from '@metal3-ts/shared/controller/handlers';
import type { Request } from '@metal3-ts/shared/reconcile/reconcile';
import { DATA_BY_SECRET_INDEX } from './mappers.ts';
import { INFRASTRUCTURE_GROUP, RENDERED_SECRET_LABEL } from './names.ts';

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
  const owners = (secret.metadata.ownerReferences ?? [])
    .filter((ref) => ref.controller === true && ref.kind === 'Metal3Data' && ref.apiVersion.startsWith(`${INFRASTRUCTURE_GROUP}/`))
    .map((ref) => ({ namespace, name: ref.name }));
  const naming = datas.byIndex(DATA_BY_SECRET_INDEX, `${namespace}/${secret.metadata.name ?? ''}`).map((d) => ({ namespace, name: d.metadata.name ?? '' }));
  return distinctRequests([...owners, ...naming]);
}

export interface RenderedSecretWatchOptions {
  /** Watch one namespace only (the manager's `--namespace`). */
  readonly namespace?: string | undefined;
}

/** The event source of rendered Secrets; a fresh informer runs from each subscribe to its unsubscribe. */
export function renderedSecretWatch(client: Client, datas: Store<Metal3Data>, options: RenderedSecretWatchOptions = {}): EventSource {
  const api = options.namespace !== undefined ? client.api(SecretResource, options.namespace) : client.all(SecretResource);
  let informer: SharedInformer<Secret> | undefined;
  return {
    kind: 'Secret',
    waitForSync: (signal) => (informer ? informer.waitForSync(signal) : Promise.reject(new Error('the rendered Secret watch is not subscribed'))),
    subscribe(enqueue, log) {
      const current = new SharedInformer<Secret>(api, SecretResource, {
        labelSelector: RENDERED_SECRET_LABEL,
        transform: metadataOnly,
        log,
        ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
      });
      informer = current;
      const stop = new AbortController();
      void current.run(stop.signal).catch((error: unknown) => log.error('rendered Secret watch stopped', { error: String(error) }));
      const unsubscribe = current.subscribe((event) => {
        for (const request of secretToDatas(datas, event.object)) enqueue(request);
      });
      return () => {
        unsubscribe();
        stop.abort();
      };
    },
  };
}
