// Resource descriptors: what a client needs to know about a kind to build its URLs, keyed by
// group/version/kind strings (never by class or function names, which minifiers rename).
import type { KubeObject } from './meta.ts';

export interface ResourceDescriptor<T extends KubeObject = KubeObject> {
  /** API group; '' for the core group. */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly listKind: string;
  readonly plural: string;
  readonly singular: string;
  readonly namespaced: boolean;
  readonly statusSubresource: boolean;
  readonly scaleSubresource: boolean;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  /** `group/version`, or `version` for the core group. */
  readonly apiVersion: T['apiVersion'];
  /** Type-level only: ties the descriptor to its object type. Never set at run time. */
  readonly __object?: T;
}

export type ResourceSpec<T extends KubeObject> = Omit<ResourceDescriptor<T>, 'apiVersion' | '__object'>;

export function defineResource<T extends KubeObject>(spec: ResourceSpec<T>): ResourceDescriptor<T> {
  const apiVersion = (spec.group === '' ? spec.version : `${spec.group}/${spec.version}`) as T['apiVersion'];
  return Object.freeze({ ...spec, apiVersion });
}

/** The registry key of a kind: `group/version/kind` (`/v1/Secret` for the core group). */
export function gvkKey(group: string, version: string, kind: string): string {
  return `${group}/${version}/${kind}`;
}

/** What a factory takes: the object without apiVersion and kind, which the factory fills in. */
export type ResourceInit<T extends KubeObject> = Omit<T, 'apiVersion' | 'kind'>;

/** `newX({...})`: a typed object of the descriptor's kind with apiVersion and kind set. */
export function factoryFor<T extends KubeObject>(descriptor: ResourceDescriptor<T>): (init: ResourceInit<T>) => T {
  return (init) => ({ apiVersion: descriptor.apiVersion, kind: descriptor.kind, ...init }) as T;
}

/** `isX(obj)`: true when obj claims the descriptor's apiVersion and kind. */
export function guardFor<T extends KubeObject>(descriptor: ResourceDescriptor<T>): (obj: unknown) => obj is T {
  return (obj): obj is T =>
    typeof obj === 'object' &&
    obj !== null &&
    (obj as KubeObject).apiVersion === descriptor.apiVersion &&
    (obj as KubeObject).kind === descriptor.kind;
}

/** A lookup table of descriptors by group/version/kind. */
export class ResourceRegistry {
  readonly #byKey = new Map<string, ResourceDescriptor>();

  constructor(descriptors: Iterable<ResourceDescriptor> = []) {
    for (const d of descriptors) this.add(d);
  }

  add(descriptor: ResourceDescriptor): void {
    const key = gvkKey(descriptor.group, descriptor.version, descriptor.kind);
    if (this.#byKey.has(key)) throw new Error(`resource ${key} registered twice`);
    this.#byKey.set(key, descriptor);
  }

  get(group: string, version: string, kind: string): ResourceDescriptor | undefined {
    return this.#byKey.get(gvkKey(group, version, kind));
  }

  /** The descriptor for an object's apiVersion and kind. */
  forObject(obj: Pick<KubeObject, 'apiVersion' | 'kind'>): ResourceDescriptor | undefined {
    const slash = obj.apiVersion.indexOf('/');
    const group = slash < 0 ? '' : obj.apiVersion.slice(0, slash);
    const version = obj.apiVersion.slice(slash + 1);
    return this.get(group, version, obj.kind);
  }

  all(): ResourceDescriptor[] {
    return [...this.#byKey.values()];
  }
}
