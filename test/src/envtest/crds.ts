// CRD installation: ours from crds/*.yaml, upstream ones (CAPI, BMO, IPAM) from the sha256-pinned
// sources that codegen resolves. Upstream CAPM3 CRDs ('reference' use) are never installed: ours
// replace them and would collide on names.
//
// "Installed" means usable: the CRD is Established, every served version lists the plural in
// discovery, and a LIST succeeds. Established alone is not enough: clients resolve kinds through
// discovery, which lags behind the condition, and the resource's watch cache answers
// "429 storage is (re)initializing" for a moment after that.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { resolveUpstream } from '@metal3-ts/codegen/upstream';
import { EnvtestError } from './errors.ts';
import type { ApiClient, KubeObject } from './http.ts';
import { waitFor } from './processes.ts';

export const ourCrdDirectory = resolve(dirname(fileURLToPath(import.meta.url)), '../../../crds');

export interface CrdVersion {
  readonly name: string;
  readonly served: boolean;
  readonly storage: boolean;
}

export interface Crd extends KubeObject {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string };
  spec: { group: string; names: { plural: string; kind: string }; scope: string; versions: CrdVersion[]; conversion?: Record<string, unknown> };
}

export interface CrdSource {
  readonly crd: Crd;
  /** File path the CRD came from (for error messages). */
  readonly origin: string;
}

function crdsFromYaml(text: string, origin: string): CrdSource[] {
  const out: CrdSource[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) throw new EnvtestError(`${origin}: invalid YAML: ${doc.errors[0]?.message}`);
    const value = doc.toJS() as KubeObject | null;
    if (!value || value.kind !== 'CustomResourceDefinition') continue;
    out.push({ crd: value as Crd, origin });
  }
  return out;
}

/** Every CRD in `crds/*.yaml` (whatever exists: the directory grows as CRDs are written). */
export function loadOurCrds(directory = ourCrdDirectory): CrdSource[] {
  let files: string[];
  try {
    files = readdirSync(directory).filter((f) => /\.ya?ml$/.test(f)).sort();
  } catch {
    return [];
  }
  return files.flatMap((f) => crdsFromYaml(readFileSync(join(directory, f), 'utf8'), join(directory, f)));
}

/**
 * The pinned upstream CRDs this project consumes (CAPI, BMO, IPAM), verified by sha256. Releases pinned
 * `envtest: false` (Cluster API v1.13: test/src/capi installs its CRDs, kustomized, with its managers) are left out.
 */
export async function loadUpstreamCrds(): Promise<CrdSource[]> {
  const sources = await resolveUpstream({ use: 'codegen', envtest: true });
  return sources.flatMap((s) => crdsFromYaml(s.text, s.origin));
}

/** Ours and upstream; a name defined twice is an error rather than a silent override. */
export async function loadAllCrds(options: { ours?: boolean; upstream?: boolean; directory?: string } = {}): Promise<CrdSource[]> {
  const all = [
    ...(options.upstream === false ? [] : await loadUpstreamCrds()),
    ...(options.ours === false ? [] : loadOurCrds(options.directory)),
  ];
  const seen = new Map<string, string>();
  for (const { crd, origin } of all) {
    const previous = seen.get(crd.metadata.name);
    if (previous) throw new EnvtestError(`CRD ${crd.metadata.name} is defined twice: ${previous} and ${origin}`);
    seen.set(crd.metadata.name, origin);
  }
  return all;
}

const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/**
 * Server-side applies every CRD (create or update in one idempotent call), then waits until each is
 * Established and discoverable.
 */
export async function installCrds(client: ApiClient, sources: readonly CrdSource[], options: { timeoutMs?: number } = {}): Promise<void> {
  await Promise.all(
    sources.map(async ({ crd, origin }) => {
      const { status: _ignored, ...object } = crd as Crd & { status?: unknown };
      try {
        await client.apply(`${CRD_PATH}/${crd.metadata.name}`, object, 'metal3-ts-envtest');
      } catch (error) {
        throw new EnvtestError(`installing CRD ${crd.metadata.name} from ${origin} failed: ${(error as Error).message}`);
      }
    }),
  );
  await waitForCrds(client, sources.map((s) => s.crd), options);
}

export async function waitForCrds(client: ApiClient, crds: readonly Crd[], options: { timeoutMs?: number } = {}): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  // Group the discovery checks: one GET per group/version per poll, however many kinds it holds.
  const wanted = new Map<string, Set<string>>();
  for (const crd of crds) {
    for (const v of crd.spec.versions) {
      if (!v.served) continue;
      const gv = `${crd.spec.group}/${v.name}`;
      const set = wanted.get(gv) ?? new Set<string>();
      set.add(crd.spec.names.plural);
      wanted.set(gv, set);
    }
  }
  const listPaths = crds.flatMap((crd) => crd.spec.versions.filter((v) => v.served).map((v) => `/apis/${crd.spec.group}/${v.name}/${crd.spec.names.plural}`));
  const pendingEstablished = new Set(crds.map((c) => c.metadata.name));
  await waitFor(
    `CRDs established (${crds.length})`,
    async () => {
      const list = await client.get<{ items: { metadata: { name: string }; status?: { conditions?: { type: string; status: string }[] } }[] }>(CRD_PATH);
      for (const item of list.items) {
        if (item.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) pendingEstablished.delete(item.metadata.name);
      }
      return pendingEstablished.size === 0 ? true : undefined;
    },
    { timeoutMs },
  );
  await Promise.all(
    [...wanted].map(([gv, plurals]) =>
      waitFor(
        `discovery of ${gv} (${[...plurals].join(', ')})`,
        async () => {
          const list = await client.get<{ resources: { name: string }[] }>(`/apis/${gv}`).catch(() => ({ resources: [] }));
          const names = new Set(list.resources.map((r) => r.name));
          return [...plurals].every((p) => names.has(p)) ? true : undefined;
        },
        { timeoutMs, intervalMs: 100 },
      )
    ),
  );
  // ApiClient retries the 429s, so one successful LIST per resource proves it is served. So does a
  // LIST refused only because objects already stored need a conversion webhook not serving yet (the
  // real Cluster API installs its CRDs before its managers start; a Cluster written earlier is stored
  // at the old version). A version just made discoverable can still answer its first LIST with 404
  // "page not found" for a moment (seen once on a loaded machine), so each LIST is asked again until
  // the timeout, which then names the last error.
  await Promise.all(listPaths.map((path) =>
    waitFor(
      `LIST ${path}`,
      () =>
        client.get(path, { query: { limit: 1 } }).then(() => true, (error: unknown) => {
          servedButUnconverted(error);
          return true;
        }),
      { timeoutMs, intervalMs: 100 },
    )
  ));
}

/** Swallows the error of a LIST refused only because a conversion webhook is not serving yet; rethrows any other. */
export function servedButUnconverted(error: unknown): void {
  const { code, message } = error as { code?: number; message?: string };
  if (code === 500 && /conversion webhook for .* failed/.test(message ?? '')) return;
  throw error;
}
