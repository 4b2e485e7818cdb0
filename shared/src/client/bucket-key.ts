// Which client-side token bucket a request spends from, read off its URL path. controller-runtime
// builds one REST client, and so one token bucket, per GroupVersionKind from the same QPS/Burst;
// a request's group, version and resource name that kind here (one resource per kind), so the
// bucket key is `group/version/resource`. Reads, lists, watches and writes of a kind share its
// bucket, in every namespace, and a subresource (`status`, `scale`, `eviction`) spends from its
// parent's, as controller-runtime's status and subresource writers reuse the parent's client.
// Paths that name no resource (discovery, /version, /healthz) share one bucket, as client-go's
// discovery client has one.

/** The bucket of every request whose path names no resource. */
export const NON_RESOURCE_BUCKET = 'non-resource';

/**
 * The namespace's own subresources: `/api/v1/namespaces/{name}/status` is the namespace's status,
 * not a resource named `status` in namespace {name} (the apiserver reads those paths the same way).
 */
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

/**
 * `core/v1/secrets`, `metal3.io/v1alpha1/baremetalhosts`: the bucket of a request to `path` (with
 * or without its query string); NON_RESOURCE_BUCKET when the path names no resource.
 */
export function bucketKeyOf(path: string): string {
  const query = path.indexOf('?');
  const parts = (query < 0 ? path : path.slice(0, query)).split('/').filter((p) => p !== '');
  let rest: string[];
  let groupVersion: string;
  if (parts[0] === 'api' && parts.length >= 3) {
    groupVersion = `core/${parts[1]}`;
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    groupVersion = `${parts[1]}/${parts[2]}`;
    rest = parts.slice(3);
  } else {
    return NON_RESOURCE_BUCKET;
  }
  // The legacy `/watch/` prefix names the same resource as the `?watch=true` form.
  if (rest[0] === 'watch') rest = rest.slice(1);
  if (rest[0] === 'namespaces' && rest.length >= 3 && !NAMESPACE_SUBRESOURCES.has(rest[2]!)) rest = rest.slice(2);
  const resource = rest[0];
  return resource ? `${groupVersion}/${resource}` : NON_RESOURCE_BUCKET;
}
