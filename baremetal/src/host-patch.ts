// How the driver writes a host: compute the desired host with a pure function, diff it against the
// host it was derived from, and send the difference as one JSON merge patch of metadata and spec
// (never status). Nothing is sent when nothing changed. With `optimisticLock` the patch carries the
// resourceVersion it was derived from, so the apiserver refuses it (409 Conflict) if anyone wrote the
// host in between; that is what makes whole-list fields such as ownerReferences safe to replace.
import type { Client, MergePatch } from '@metal3-ts/generated';
import { type BareMetalHost, BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { createMergePatch, type JsonMap } from '@metal3-ts/shared/patch/diff';

export interface HostPatchOptions {
  /** Carry `before`'s resourceVersion, so a concurrent write makes the patch fail with a Conflict. */
  readonly optimisticLock?: boolean;
}

/** The merge patch of metadata and spec from `before` to `after`; undefined when they agree. */
export function hostMergePatch(
  before: Readonly<BareMetalHost>,
  after: Readonly<BareMetalHost>,
  options: HostPatchOptions = {},
): MergePatch<BareMetalHost> | undefined {
  const metadata = createMergePatch(before.metadata, after.metadata);
  const spec = before.spec === undefined && after.spec === undefined ? undefined : createMergePatch(before.spec ?? {}, after.spec ?? {});
  if (metadata === undefined && spec === undefined) return undefined;
  const patch: JsonMap = {};
  const meta: JsonMap = { ...metadata };
  if (options.optimisticLock) {
    const resourceVersion = before.metadata.resourceVersion;
    if (!resourceVersion) throw new TypeError(`host ${hostKey(before)} has no resourceVersion to lock on`);
    meta['resourceVersion'] = resourceVersion;
  }
  if (Object.keys(meta).length > 0) patch['metadata'] = meta;
  if (spec !== undefined) patch['spec'] = spec;
  return patch as MergePatch<BareMetalHost>;
}

/** `namespace/name`, for messages. */
export function hostKey(host: Readonly<BareMetalHost>): string {
  return `${host.metadata.namespace ?? ''}/${host.metadata.name ?? ''}`;
}

export interface HostWriteOptions extends HostPatchOptions {
  /** Called with every host version the apiserver returns for our writes (read your own writes). */
  readonly onWrite?: (host: BareMetalHost) => void;
  readonly fieldManager?: string;
}

/**
 * Sends the metadata+spec difference between `before` and `after` and returns the written host, or
 * undefined when there was nothing to send. Errors are the client's typed errors (ConflictError
 * when locked and stale, NotFoundError when the host is gone).
 */
export async function patchHost(
  client: Client,
  before: Readonly<BareMetalHost>,
  after: Readonly<BareMetalHost>,
  options: HostWriteOptions = {},
): Promise<BareMetalHost | undefined> {
  const patch = hostMergePatch(before, after, options);
  if (patch === undefined) return undefined;
  const { name, namespace } = before.metadata;
  if (!name || !namespace) throw new TypeError('a BareMetalHost needs metadata.name and metadata.namespace');
  const written = await client
    .api(BareMetalHostResource, namespace)
    .mergePatch(name, patch, options.fieldManager ? { fieldManager: options.fieldManager } : {});
  options.onWrite?.(written);
  return written;
}

/** A mutable deep copy of a (possibly frozen, cached) host, to derive a desired host from. */
export function copyHost(host: Readonly<BareMetalHost>): BareMetalHost {
  return structuredClone(host) as BareMetalHost;
}
