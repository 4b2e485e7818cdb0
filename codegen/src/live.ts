// Live mode: the same generated modules, from a running apiserver instead of files. The kind schemas
// come from /openapi/v3 (the structural schemas the apiserver actually serves), names and scope from
// discovery; both run through the same emitter as file mode, so a module generated live must equal
// the one generated from the CRD files that were installed. openapi-typescript renders each
// group/version document (and core/v1) as a second, independent view of the served API.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { type HttpRequest, type KubeConfigLike, Transport } from '../templates/runtime/transport.ts';
import type { Crd, CrdVersion } from './crd.ts';
import { emitGroupVersion, type GroupVersionModule, type KindInput, modulePath } from './emit-module.ts';
import { CodegenError } from './errors.ts';
import type { Schema } from './schema.ts';
import { sha256 } from './upstream.ts';

/** The group whose descriptions are ours and may be emitted. */
const OWN_GROUP = 'infrastructure.cluster.x-k8s.io';

interface DiscoveryResource {
  name: string;
  singularName?: string;
  namespaced: boolean;
  kind: string;
  shortNames?: string[];
  categories?: string[];
}

interface OpenApiDoc {
  components?: { schemas?: Record<string, Schema & { 'x-kubernetes-group-version-kind'?: { group: string; version: string; kind: string }[] }> };
}

export interface LiveResult {
  readonly modules: GroupVersionModule[];
  /** openapi-typescript output per group/version path, e.g. `metal3.io/v1alpha1.openapi.ts`. */
  readonly openapi: Map<string, string>;
}

/** What live mode needs of a transport (the generated package's Transport has it). */
export interface ApiReader {
  readonly server: URL;
  request<T>(request: HttpRequest): Promise<T>;
}

const get = <T>(transport: ApiReader, path: string): Promise<T> => transport.request<T>({ method: 'GET', path, verb: 'get', resource: 'openapi' });

/** Reads every CRD-served group/version of the apiserver (and core/v1) and emits its module. */
export async function generateFromServer(transport: ApiReader, options: { timeoutMs?: number } = {}): Promise<LiveResult> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  const version = await get<{ gitVersion: string }>(transport, '/version');
  const crds = await get<{ items: { spec: { group: string; versions: { name: string; served: boolean }[] } }[] }>(
    transport,
    '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
  );
  const served = new Set(crds.items.flatMap((c) => c.spec.versions.filter((v) => v.served).map((v) => `apis/${c.spec.group}/${v.name}`)));
  const modules: GroupVersionModule[] = [];
  const openapi = new Map<string, string>();
  for (const path of ['api/v1', ...[...served].sort()]) {
    const isCore = path === 'api/v1';
    const [, group = '', gv = 'v1'] = isCore ? [] : path.split('/');
    const discovery = isCore ? undefined : await get<{ resources: DiscoveryResource[] }>(transport, `/${path}`);
    const kinds = (discovery?.resources ?? []).filter((r) => !r.name.includes('/')).map((r) => r.kind);
    const { doc, url } = await publishedDocument(transport, path, kinds, deadline);
    let ast;
    try {
      ast = await openapiTS(doc as OpenAPI3, { emptyObjectsUnknown: true, defaultNonNullable: false, silent: true });
    } catch (cause) {
      throw new CodegenError(`openapi-typescript failed: ${(cause as Error).message}`, url);
    }
    openapi.set(modulePath(group, gv).replace(/\.ts$/, '.openapi.ts'), astToString(ast));
    if (isCore) continue;
    const inputs = kindInputs(group, gv, doc, discovery!.resources, `live ${transport.server.origin}/${path}`, version.gitVersion, sha256(JSON.stringify(doc)));
    if (inputs.length > 0) modules.push(await emitGroupVersion(group, gv, inputs));
  }
  return { modules, openapi };
}

/**
 * The OpenAPI v3 document of one group/version once it describes every kind discovery lists: the
 * apiserver publishes schemas of newly installed CRDs asynchronously, so a fresh document may lag.
 */
async function publishedDocument(transport: ApiReader, path: string, kinds: readonly string[], deadline: number): Promise<{ doc: OpenApiDoc; url: string }> {
  for (;;) {
    const index = await get<{ paths: Record<string, { serverRelativeURL: string }> }>(transport, '/openapi/v3');
    const url = index.paths[path]?.serverRelativeURL;
    if (url) {
      const doc = await get<OpenApiDoc | null>(transport, url);
      const published = new Set(
        Object.values(doc?.components?.schemas ?? {}).flatMap((s) => (s['x-kubernetes-group-version-kind'] ?? []).map((g) => g.kind)),
      );
      if (doc && kinds.every((k) => published.has(k))) return { doc, url };
    }
    if (Date.now() > deadline) throw new CodegenError(`OpenAPI v3 document not published for all of ${kinds.join(', ')}`, `/openapi/v3/${path}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function kindInputs(
  group: string,
  version: string,
  doc: OpenApiDoc,
  resources: DiscoveryResource[],
  label: string,
  serverVersion: string,
  digest: string,
): KindInput[] {
  const inputs: KindInput[] = [];
  const subresources = new Set(resources.filter((r) => r.name.includes('/')).map((r) => r.name));
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
    const gvk = schema['x-kubernetes-group-version-kind']?.[0];
    if (!gvk || gvk.group !== group || gvk.version !== version) continue;
    const resource = resources.find((r) => r.kind === gvk.kind && !r.name.includes('/'));
    if (!resource) continue; // a List kind, or one not served here
    const file = `${label}#/components/schemas/${name}`;
    const crdVersion: CrdVersion = {
      name: version,
      served: true,
      storage: true,
      deprecated: false,
      statusSubresource: subresources.has(`${resource.name}/status`),
      scaleSubresource: subresources.has(`${resource.name}/scale`),
      schema: toCrdSchema(schema, file),
      schemaPath: '$',
    };
    const crd: Crd = {
      file,
      group,
      names: {
        kind: gvk.kind,
        listKind: `${gvk.kind}List`,
        plural: resource.name,
        singular: resource.singularName || gvk.kind.toLowerCase(),
        shortNames: resource.shortNames ?? [],
        categories: resource.categories ?? [],
      },
      namespaced: resource.namespaced,
      versions: [crdVersion],
    };
    inputs.push({ crd, version: crdVersion, source: { label, version: serverVersion, sha256: digest }, descriptions: group === OWN_GROUP });
  }
  return inputs;
}

/**
 * Undoes what the apiserver does when it publishes a CRD schema: metadata becomes a $ref to
 * ObjectMeta again, and the GVK extension goes. Any other $ref is unexpected and reported.
 */
function toCrdSchema(published: Schema, file: string): Schema {
  const { 'x-kubernetes-group-version-kind': _gvk, ...root } = published as Schema & Record<string, unknown>;
  const properties = { ...(root.properties ?? {}) };
  if (properties['metadata']) properties['metadata'] = { type: 'object' };
  const clean = (node: unknown, path: string): unknown => {
    if (Array.isArray(node)) return node.map((n, i) => clean(n, `${path}[${i}]`));
    if (!node || typeof node !== 'object') return node;
    if ('$ref' in node) throw new CodegenError(`unexpected $ref ${(node as { $ref: string }).$ref}`, file, path);
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, clean(v, `${path}.${k}`)]));
  };
  return clean({ ...root, properties }, '$') as Schema;
}

export interface LiveOptions {
  readonly kubeconfigPath: string;
  readonly outDir?: string;
}

/** CLI entry: loads the kubeconfig with @kubernetes/client-node and writes the live output. */
export async function generateLive(options: LiveOptions): Promise<{ dir: string; files: number }> {
  const { KubeConfig } = await import('@kubernetes/client-node');
  const kc = new KubeConfig();
  kc.loadFromString(readFileSync(options.kubeconfigPath, 'utf8'));
  const transport = Transport.fromKubeConfig(kc as unknown as KubeConfigLike);
  try {
    const result = await generateFromServer(transport);
    const dir = resolve(options.outDir ?? 'generated-live');
    const files = new Map<string, string>([...result.modules.map((m) => [m.path, m.text] as const), ...result.openapi]);
    for (const [path, text] of files) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    return { dir, files: files.size };
  } finally {
    transport.close();
  }
}
