// What a request path names, as the apiserver's router reads it: the resource (by group, version
// and plural), the namespace, the object name, the subresource and the query. Only resources the
// fake was given are served; anything else is undefined, which the fake answers 404 as the apiserver
// answers for a kind it does not serve.
import type { ResourceDescriptor } from '@metal3-ts/generated';

export interface Route {
  readonly descriptor: ResourceDescriptor;
  /** Undefined for cluster-scoped kinds and for lists and watches across all namespaces. */
  readonly namespace: string | undefined;
  readonly name: string | undefined;
  readonly subresource: string | undefined;
  readonly query: URLSearchParams;
}

/** Finds descriptors by `group/version/plural`. */
export class RouteTable {
  readonly #byPlural = new Map<string, ResourceDescriptor>();

  constructor(descriptors: Iterable<ResourceDescriptor>) {
    for (const d of descriptors) this.#byPlural.set(`${d.group}/${d.version}/${d.plural}`, d);
  }

  parse(pathWithQuery: string): Route | undefined {
    const url = new URL(pathWithQuery, 'http://fake.invalid');
    const parts = url.pathname.split('/').filter((p) => p !== '').map(decodeURIComponent);
    let group: string;
    let rest: string[];
    if (parts[0] === 'api' && parts.length >= 3) [group, rest] = ['', parts.slice(1)];
    else if (parts[0] === 'apis' && parts.length >= 4) [group, rest] = [parts[1] ?? '', parts.slice(2)];
    else return undefined;
    const [version, ...segments] = rest;
    const lookup = (plural: string | undefined) => this.#byPlural.get(`${group}/${version}/${plural}`);
    const namespaced = segments[0] === 'namespaces' && segments.length >= 3 ? lookup(segments[2]) : undefined;
    if (namespaced?.namespaced) {
      const [, namespace, , name, subresource, extra] = segments;
      if (extra !== undefined) return undefined;
      return { descriptor: namespaced, namespace, name, subresource, query: url.searchParams };
    }
    const [plural, name, subresource, extra] = segments;
    const descriptor = lookup(plural);
    if (!descriptor || extra !== undefined) return undefined;
    // A namespaced kind addressed without a namespace is only a list or watch across all of them.
    if (descriptor.namespaced && name !== undefined) return undefined;
    return { descriptor, namespace: undefined, name, subresource, query: url.searchParams };
  }
}
