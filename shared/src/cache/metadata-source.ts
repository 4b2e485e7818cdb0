// A list/watch source of the objects' metadata alone (the apiserver's PartialObjectMetadata), for an
// informer whose readers see nothing else: spec and status never cross the wire or the JSON parser,
// which at a thousand Machines is most of what a controller that only counts or maps them would
// parse. Each object gets its served apiVersion and kind back (the apiserver answers with
// `meta.k8s.io/v1 PartialObjectMetadata`), so the cache holds what a full object's metadata
// projection would hold. Metadata is the same in every served version: no version view applies.
import type { Api, KubeList, KubeObject, ListOptions, ResourceDescriptor, WatchEvent, WatchOptions } from '@metal3-ts/generated';
import type { ListWatchSource } from './watcher.ts';

export function metadataSource<T extends KubeObject>(api: Api<KubeObject>, served: ResourceDescriptor<T>): ListWatchSource<T> {
  const typed = (object: KubeObject): T => ({ apiVersion: served.apiVersion, kind: served.kind, metadata: object.metadata }) as T;
  return {
    async list(options: ListOptions): Promise<KubeList<T>> {
      const list = await api.listMetadata(options);
      return { ...list, items: list.items.map(typed) };
    },
    async *watch(options: WatchOptions): AsyncIterable<WatchEvent<T>> {
      for await (const event of api.watchMetadata(options)) yield event.type === 'BOOKMARK' ? event : { type: event.type, object: typed(event.object) };
    },
  };
}
