// The clusterctl provider release: infrastructure-components.yaml rendered from config/release by
// kustomize and checked the way clusterctl will read it (research CC-3, CC-4): every clusterctl
// variable well-formed and declared (envsubst.ts), exactly one Namespace and every namespaced object in
// it, each controller a Deployment whose container is `manager`, the provider label on every object;
// and metadata.yaml mapping this version's release series to a contract. Written with metadata.yaml
// into dist/release/, the files of a GitHub release or of a local clusterctl repository.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { type VariableUse, variableUses } from './envsubst.ts';
import { kustomizeBuild } from './kustomize.ts';
import { CONFIG, METADATA, NAMESPACE, PROVIDER_LABEL, RELEASE_DIR, ROOT } from './layout.ts';

export const COMPONENTS_FILE = 'infrastructure-components.yaml';

export class ComponentsError extends Error {
  override name = 'ComponentsError';
}

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

const CLUSTER_SCOPED = new Set([
  'Namespace',
  'CustomResourceDefinition',
  'ClusterRole',
  'ClusterRoleBinding',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
]);

/** The provider's version (`v` + the release package's), the directory name clusterctl expects. */
export function providerVersion(root: string = ROOT): string {
  return `v${(JSON.parse(readFileSync(join(root, 'release/package.json'), 'utf8')) as { version: string }).version}`;
}

/** The contract metadata.yaml gives `version` (clusterctl's own lookup: major and minor). */
export function contractOf(metadataText: string, version: string): string {
  const metadata = parse(metadataText) as { apiVersion?: string; kind?: string; releaseSeries?: { major: number; minor: number; contract: string }[] };
  if (metadata?.apiVersion !== 'clusterctl.cluster.x-k8s.io/v1alpha3' || metadata.kind !== 'Metadata') {
    throw new ComponentsError('metadata.yaml: expected apiVersion clusterctl.cluster.x-k8s.io/v1alpha3, kind Metadata');
  }
  const [major, minor] = version.replace(/^v/, '').split('.').map(Number);
  const series = (metadata.releaseSeries ?? []).find((s) => s.major === major && s.minor === minor);
  if (!series?.contract) {
    throw new ComponentsError(
      `metadata.yaml: no release series for ${major}.${minor} (version ${version}): add {major: ${major}, minor: ${minor}, contract: v1beta1}`,
    );
  }
  return series.contract;
}

/** Checks rendered components; returns their objects and variable uses. Throws ComponentsError or VariableError. */
export function checkComponents(text: string): { objects: Manifest[]; variables: VariableUse[] } {
  const variables = variableUses(text);
  const objects = parseAllDocuments(text).map((d) => d.toJSON() as Manifest | null).filter((o): o is Manifest => o !== null);
  const where = (o: Manifest) => `${o.kind} ${o.metadata?.name}`;
  const namespaces = objects.filter((o) => o.kind === 'Namespace');
  if (namespaces.length !== 1 || namespaces[0]?.metadata.name !== NAMESPACE) {
    throw new ComponentsError(`expected exactly one Namespace ${NAMESPACE}, found ${namespaces.map(where).join(', ') || 'none'}`);
  }
  for (const o of objects) {
    if (o.metadata?.labels?.[PROVIDER_LABEL.key] !== PROVIDER_LABEL.value) {
      throw new ComponentsError(`${where(o)} lacks the label ${PROVIDER_LABEL.key}: ${PROVIDER_LABEL.value}`);
    }
    const namespaced = !CLUSTER_SCOPED.has(o.kind);
    if (namespaced && o.metadata.namespace !== NAMESPACE) {
      throw new ComponentsError(`${where(o)} is in namespace ${o.metadata.namespace ?? '(none)'}, not ${NAMESPACE}`);
    }
    if (!namespaced && o.metadata.namespace) throw new ComponentsError(`${where(o)} is cluster-scoped but names namespace ${o.metadata.namespace}`);
    if (o.kind === 'Deployment') {
      const containers = ((o['spec'] as { template?: { spec?: { containers?: { name: string }[] } } })?.template?.spec?.containers ?? []).map((c) => c.name);
      if (!containers.includes('manager')) {
        throw new ComponentsError(`${where(o)} has no container named manager (clusterctl's contract), only ${containers.join(', ')}`);
      }
    }
  }
  return { objects, variables };
}

export interface Rendered {
  readonly version: string;
  readonly contract: string;
  readonly text: string;
  readonly objects: Manifest[];
  readonly variables: VariableUse[];
}

/** Renders and checks the components of `config/release` (or `dir`); writes nothing. */
export async function renderComponents(options: { dir?: string; kustomize?: string } = {}): Promise<Rendered> {
  const version = providerVersion();
  const contract = contractOf(readFileSync(METADATA, 'utf8'), version);
  const text = await kustomizeBuild(options.dir ?? join(CONFIG, 'release'), options.kustomize);
  return { version, contract, text, ...checkComponents(text) };
}

/** Renders into `out` (default dist/release/): the components and metadata.yaml. */
export async function writeRelease(out: string = RELEASE_DIR, options: { kustomize?: string } = {}): Promise<Rendered & { files: string[] }> {
  const rendered = await renderComponents(options);
  mkdirSync(out, { recursive: true });
  const files = [join(out, COMPONENTS_FILE), join(out, 'metadata.yaml')];
  writeFileSync(files[0] as string, rendered.text);
  copyFileSync(METADATA, files[1] as string);
  return { ...rendered, files };
}
