// The fake's storage: objects by resource, namespace and name, one resourceVersion counter for all
// of them (as etcd's revision), and the ordered log of changes that watches replay and follow.
// Everything handed out is a deep copy: no caller can change what is stored except by a write.
import type { KubeObject, ResourceDescriptor } from '@metal3-ts/generated';

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface Change {
  readonly resourceVersion: number;
  readonly resource: string;
  readonly type: ChangeType;
  readonly object: KubeObject;
  /** The object before a MODIFIED change (watches with a selector need both). */
  readonly previous?: KubeObject;
}

export const resourceKey = (d: ResourceDescriptor): string => `${d.group}/${d.plural}`;
const objectKey = (d: ResourceDescriptor, namespace: string | undefined, name: string): string => `${resourceKey(d)}/${namespace ?? ''}/${name}`;

export class ObjectStore {
  #revision = 0;
  readonly #objects = new Map<string, KubeObject>();
  readonly #log: Change[] = [];
  readonly #listeners = new Set<(change: Change) => void>();

  get revision(): number {
    return this.#revision;
  }

  get(d: ResourceDescriptor, namespace: string | undefined, name: string): KubeObject | undefined {
    const obj = this.#objects.get(objectKey(d, namespace, name));
    return obj && structuredClone(obj);
  }

  /** Objects of `d` (in `namespace`, or all), ordered by namespace and name as the apiserver lists them. */
  list(d: ResourceDescriptor, namespace: string | undefined): KubeObject[] {
    const prefix = namespace === undefined ? `${resourceKey(d)}/` : `${resourceKey(d)}/${namespace}/`;
    return [...this.#objects.entries()]
      .filter(([key]) => key.startsWith(prefix))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, obj]) => structuredClone(obj));
  }

  /** Stores `obj` with the next resourceVersion and returns the stored copy. */
  put(d: ResourceDescriptor, obj: KubeObject, type: 'ADDED' | 'MODIFIED'): KubeObject {
    const key = objectKey(d, obj.metadata.namespace, obj.metadata.name ?? '');
    const previous = this.#objects.get(key);
    const stored = structuredClone(obj);
    stored.metadata.resourceVersion = String(++this.#revision);
    this.#objects.set(key, stored);
    this.#record({ resourceVersion: this.#revision, resource: resourceKey(d), type, object: stored, ...(previous ? { previous } : {}) });
    return structuredClone(stored);
  }

  /** Removes the object; the DELETED change carries its last state at a new resourceVersion. */
  remove(d: ResourceDescriptor, obj: KubeObject): KubeObject {
    this.#objects.delete(objectKey(d, obj.metadata.namespace, obj.metadata.name ?? ''));
    const last = structuredClone(obj);
    last.metadata.resourceVersion = String(++this.#revision);
    this.#record({ resourceVersion: this.#revision, resource: resourceKey(d), type: 'DELETED', object: last });
    return structuredClone(last);
  }

  /** Changes of `resource` after `since`, in order. */
  changesAfter(resource: string, since: number): Change[] {
    return this.#log.filter((c) => c.resourceVersion > since && c.resource === resource);
  }

  subscribe(listener: (change: Change) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #record(change: Change): void {
    this.#log.push(change);
    for (const listener of [...this.#listeners]) listener(change);
  }
}
