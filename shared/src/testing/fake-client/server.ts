// The fake apiserver: one synchronous function from an HTTP request (method, path, body, content
// type) to a Reply, over an ObjectStore. It keeps the semantics controllers depend on and the
// contract suite checks against the real apiserver: resourceVersion preconditions (409), JSON Patch
// with `test` guards (422), merge patch, the status subresource, generation, finalizers and
// deletionTimestamp, typed failures, label and field selectors, paged lists. It has no admission,
// no schema or CEL validation, no defaulting, no garbage collector and no server-side apply.
import { randomUUID } from 'node:crypto';
import { type HttpRequest, type JsonPatchOperation, type KubeObject, registry as allResources, type ResourceDescriptor } from '@metal3-ts/generated';
import { applyJsonPatch, applyMergePatch, PatchFailure } from './patches.ts';
import {
  alreadyExists,
  badRequest,
  conflict,
  invalid,
  isReply,
  methodNotAllowed,
  notFound,
  notServed,
  ok,
  type Reply,
  unprocessable,
  unsupported,
} from './replies.ts';
import { type Route, RouteTable } from './routes.ts';
import { fieldMatcher, labelMatcher, type Matcher, SelectorError } from './selectors.ts';
import { created, createProblem, isCustomResource, updated } from './semantics.ts';
import { ObjectStore } from './store.ts';

export type FakeRequest = Pick<HttpRequest, 'method' | 'path' | 'body' | 'contentType'>;

export interface FakeApiServerOptions {
  /** Kinds served; default every kind of `@metal3-ts/generated`. */
  readonly resources?: Iterable<ResourceDescriptor>;
  /** The server's clock, for creation and deletion timestamps. */
  readonly now?: () => Date;
}

const rfc3339 = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
const suffix = (): string => randomUUID().replace(/-/g, '').slice(0, 5);

export class FakeApiServer {
  readonly store = new ObjectStore();
  readonly routes: RouteTable;
  readonly #now: () => Date;

  constructor(options: FakeApiServerOptions = {}) {
    this.routes = new RouteTable(options.resources ?? allResources.all());
    this.#now = options.now ?? (() => new Date());
  }

  handle(request: FakeRequest): Reply {
    const route = this.routes.parse(request.path);
    if (!route) return notServed();
    if (route.subresource !== undefined && (route.subresource !== 'status' || !route.descriptor.statusSubresource)) return notServed();
    // A DELETE's options come from its body when it has one (the query's are then ignored, as the
    // apiserver does); every other verb takes dryRun from the query.
    const deleteOptions = request.method === 'DELETE' && request.body !== undefined ? (request.body as { dryRun?: string[] }) : undefined;
    const dryRun = deleteOptions ? (deleteOptions.dryRun ?? []).includes('All') : route.query.get('dryRun') === 'All';
    try {
      switch (request.method) {
        case 'GET':
          return route.name === undefined ? this.#list(route) : this.#get(route, route.name);
        case 'POST':
          return route.name === undefined ? this.#create(route, request.body as KubeObject, dryRun) : methodNotAllowed('POST names a collection');
        case 'PUT':
          return route.name === undefined ? methodNotAllowed('PUT names an object') : this.#replace(route, route.name, request.body as KubeObject, dryRun);
        case 'PATCH':
          return route.name === undefined ? methodNotAllowed('PATCH names an object') : this.#patch(route, route.name, request, dryRun);
        case 'DELETE':
          return route.name === undefined
            ? methodNotAllowed('deleting a collection is not supported by the fake')
            : this.#delete(route, route.name, request.body, dryRun);
      }
    } catch (error) {
      if (error instanceof SelectorError) return badRequest(error.message);
      throw error;
    }
  }

  /** Matches of a list or watch: namespace (when bound), label and field selectors. */
  matcher(route: Route): Matcher {
    const labels = labelMatcher(route.query.get('labelSelector') ?? undefined);
    const fields = fieldMatcher(route.query.get('fieldSelector') ?? undefined);
    return (obj) => (route.namespace === undefined || obj.metadata.namespace === route.namespace) && labels(obj) && fields(obj);
  }

  #get(route: Route, name: string): Reply {
    const obj = this.store.get(route.descriptor, route.namespace, name);
    return obj ? ok(obj) : notFound(route.descriptor, name);
  }

  #list(route: Route): Reply {
    const d = route.descriptor;
    const matches = this.matcher(route);
    const all = this.store.list(d, route.namespace).filter(matches);
    // The continue token is the key after which the next page starts (names are unique per namespace).
    const after = route.query.get('continue') ?? '';
    const start = after ? all.findIndex((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name}` > after) : 0;
    const rest = start < 0 ? [] : all.slice(start);
    const limit = Number(route.query.get('limit') ?? 0);
    const page = limit > 0 ? rest.slice(0, limit) : rest;
    const last = page.at(-1);
    const more = page.length < rest.length && last !== undefined;
    return ok({
      apiVersion: d.apiVersion,
      kind: d.listKind,
      metadata: {
        resourceVersion: String(this.store.revision),
        ...(more ? { continue: `${last.metadata.namespace ?? ''}/${last.metadata.name}`, remainingItemCount: rest.length - page.length } : {}),
      },
      items: page.map((o) => ({ ...o, apiVersion: d.apiVersion, kind: d.kind })),
    });
  }

  #create(route: Route, body: KubeObject, dryRun: boolean): Reply {
    const d = route.descriptor;
    const problem = createProblem(body, d, route.namespace);
    if (problem) return problem;
    const name = body.metadata.name || `${body.metadata.generateName}${suffix()}`;
    if (this.store.get(d, route.namespace, name)) return alreadyExists(d, name);
    const obj = created(body, d, route.namespace, { uid: randomUUID(), now: rfc3339(this.#now()), name });
    return ok(dryRun ? obj : this.store.put(d, obj, 'ADDED'), 201);
  }

  #replace(route: Route, name: string, body: KubeObject, dryRun: boolean): Reply {
    const d = route.descriptor;
    const current = this.store.get(d, route.namespace, name);
    if (!current) return notFound(d, name);
    const rv = body?.metadata?.resourceVersion;
    if (!rv && isCustomResource(d)) return invalid(d, name, 'metadata.resourceVersion: Invalid value: 0x0: must be specified for an update');
    // A PUT's uid is a precondition (409); a patch that changes it is refused as immutable (422).
    const uid = body.metadata.uid;
    if (uid && uid !== current.metadata.uid) {
      return conflict(d, name, `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${current.metadata.uid}`);
    }
    return this.#store(route, current, body, dryRun);
  }

  #patch(route: Route, name: string, request: FakeRequest, dryRun: boolean): Reply {
    const d = route.descriptor;
    const current = this.store.get(d, route.namespace, name);
    if (!current) return notFound(d, name);
    let next: unknown;
    try {
      if (request.contentType === 'application/merge-patch+json') next = applyMergePatch(current, request.body);
      else if (request.contentType === 'application/json-patch+json') next = applyJsonPatch(current, request.body as JsonPatchOperation[]);
      else {return unsupported(
          `the fake apiserver does not take ${request.contentType ?? 'a patch without a content type'} (no server-side apply, no strategic merge patch)`,
        );}
    } catch (error) {
      if (error instanceof PatchFailure) return unprocessable(error.message);
      throw error;
    }
    return this.#store(route, current, next as KubeObject, dryRun);
  }

  /** The common end of PUT and PATCH: the resourceVersion precondition, the update rules, the write. */
  #store(route: Route, current: KubeObject, next: KubeObject, dryRun: boolean): Reply {
    const d = route.descriptor;
    const name = current.metadata.name ?? '';
    const rv = next?.metadata?.resourceVersion;
    if (rv && rv !== current.metadata.resourceVersion) return conflict(d, name);
    const result = updated(current, next, d, route.subresource);
    if (isReply(result)) return result;
    if (dryRun) return ok(result);
    // Removing the last finalizer of an object being deleted deletes it.
    if (result.metadata.deletionTimestamp && (result.metadata.finalizers ?? []).length === 0) {
      return ok(this.store.remove(d, result));
    }
    return ok(this.store.put(d, result, 'MODIFIED'));
  }

  #delete(route: Route, name: string, body: unknown, dryRun: boolean): Reply {
    const d = route.descriptor;
    const current = this.store.get(d, route.namespace, name);
    if (!current) return notFound(d, name);
    const preconditions = (body as { preconditions?: { uid?: string; resourceVersion?: string } } | undefined)?.preconditions;
    if (preconditions?.uid && preconditions.uid !== current.metadata.uid) {
      return conflict(d, name, `Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${current.metadata.uid}`);
    }
    if (preconditions?.resourceVersion && preconditions.resourceVersion !== current.metadata.resourceVersion) {
      return conflict(
        d,
        name,
        `Precondition failed: ResourceVersion in precondition: ${preconditions.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion}`,
      );
    }
    if ((current.metadata.finalizers ?? []).length > 0) {
      if (current.metadata.deletionTimestamp || dryRun) return ok(current);
      const deleting = structuredClone(current);
      deleting.metadata.deletionTimestamp = rfc3339(this.#now());
      deleting.metadata.deletionGracePeriodSeconds = 0;
      if (deleting.metadata.generation !== undefined) deleting.metadata.generation += 1;
      return ok(this.store.put(d, deleting, 'MODIFIED'));
    }
    if (dryRun) return ok(current);
    const gone = this.store.remove(d, current);
    return ok({ apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Success', details: { name, group: d.group, kind: d.plural, uid: gone.metadata.uid } });
  }
}
