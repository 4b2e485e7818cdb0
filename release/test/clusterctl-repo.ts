// A local clusterctl repository (research CC-2, CC-9) for the provider test: our release as
// `infrastructure-metal3/<version>/`, and minimal stand-ins for the providers `clusterctl init` always
// installs with it (core cluster-api, kubeadm bootstrap and control plane): a Namespace each, plus
// the core's Cluster CRD at v1beta2, which clusterctl reads to tell which contract the management
// cluster runs. cert-manager is handled offline differently: clusterctl skips installing it when it can
// already create an Issuer and a Certificate, so the test installs those two CRDs (certManagerCrds).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { COMPONENTS_FILE, providerVersion, writeRelease } from '../src/components.ts';

export const CAPI_VERSION = 'v1.13.5';
export const IMAGE_OVERRIDE = { repository: 'registry.example:5000/m3ts', tag: 'v0.1.0-test' } as const;

const metadataV1beta2 = stringify({
  apiVersion: 'clusterctl.cluster.x-k8s.io/v1alpha3',
  kind: 'Metadata',
  releaseSeries: [{ major: 1, minor: 13, contract: 'v1beta2' }],
});

const namespace = (name: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });

function crd(group: string, kind: string, plural: string, version: string, labels: Record<string, string> = {}) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}`, labels },
    spec: {
      group,
      scope: 'Namespaced',
      names: { kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase() },
      versions: [{ name: version, served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  };
}

export const certManagerCrds = () => [crd('cert-manager.io', 'Issuer', 'issuers', 'v1'), crd('cert-manager.io', 'Certificate', 'certificates', 'v1')];

const stubs: { label: string; name: string; type: string; file: string; objects: object[] }[] = [
  {
    label: 'cluster-api',
    name: 'cluster-api',
    type: 'CoreProvider',
    file: 'core-components.yaml',
    objects: [namespace('capi-system'), crd('cluster.x-k8s.io', 'Cluster', 'clusters', 'v1beta2', { 'cluster.x-k8s.io/v1beta2': 'v1beta2' })],
  },
  {
    label: 'bootstrap-kubeadm',
    name: 'kubeadm',
    type: 'BootstrapProvider',
    file: 'bootstrap-components.yaml',
    objects: [namespace('capi-kubeadm-bootstrap-system')],
  },
  {
    label: 'control-plane-kubeadm',
    name: 'kubeadm',
    type: 'ControlPlaneProvider',
    file: 'control-plane-components.yaml',
    objects: [namespace('capi-kubeadm-control-plane-system')],
  },
];

export interface LocalRepository {
  /** The clusterctl.yaml to pass with --config. */
  readonly config: string;
  /** Our provider's version, as `clusterctl init --infrastructure metal3:<version>` names it. */
  readonly version: string;
  /** A copy of our release as the next minor version, for `clusterctl upgrade`. */
  readonly nextVersion: string;
  /** Objects in our components. */
  readonly objectCount: number;
}

export async function localRepository(dir: string): Promise<LocalRepository> {
  const repo = join(dir, 'repository');
  const providers: object[] = [];
  for (const s of stubs) {
    const at = join(repo, s.label, CAPI_VERSION);
    mkdirSync(at, { recursive: true });
    writeFileSync(join(at, s.file), s.objects.map((o) => stringify(o)).join('---\n'));
    writeFileSync(join(at, 'metadata.yaml'), metadataV1beta2);
    providers.push({ name: s.name, type: s.type, url: join(at, s.file) });
  }
  const ours = join(repo, 'infrastructure-metal3', providerVersion());
  const release = await writeRelease(ours);
  // The same release again as the next minor, so the test can `clusterctl upgrade` to it: its
  // metadata.yaml maps the next series to the same contract, as a real next release's would.
  const nextVersion = nextMinor(release.version);
  const next = join(repo, 'infrastructure-metal3', nextVersion);
  mkdirSync(next, { recursive: true });
  writeFileSync(join(next, COMPONENTS_FILE), release.text);
  const [major, minor] = nextVersion.slice(1).split('.').map(Number);
  const metadata = parse(readFileSync(join(ours, 'metadata.yaml'), 'utf8')) as { releaseSeries: object[] };
  metadata.releaseSeries.push({ major, minor, contract: release.contract });
  writeFileSync(join(next, 'metadata.yaml'), stringify(metadata));
  providers.push({ name: 'metal3', type: 'InfrastructureProvider', url: `file://${join(ours, COMPONENTS_FILE)}` });
  const config = join(dir, 'clusterctl.yaml');
  // The README's way to point the images at a registry: clusterctl's own image override.
  const images = { 'infrastructure-metal3': { repository: IMAGE_OVERRIDE.repository, tag: IMAGE_OVERRIDE.tag } };
  writeFileSync(config, stringify({ providers, images, overridesFolder: join(dir, 'overrides') }));
  return { config, version: release.version, nextVersion, objectCount: release.objects.length };
}

function nextMinor(version: string): string {
  const [major, minor] = version.slice(1).split('.').map(Number);
  return `v${major}.${(minor ?? 0) + 1}.0`;
}
