// One Cluster API release's install manifests, as the released components apply them, adapted to the
// test environment: each component's CRDs (kustomized: contract labels, conversion stanzas), its
// admission webhook configurations (named with the component's prefix) and its manager arguments
// (feature gates and the like), with every webhook client pointed at a local server (URL and CA bundle)
// instead of the in-cluster Service the release names. Pure: reading files is the caller's `read`.
import { EnvtestError } from '../envtest/errors.ts';
import { build, expandDefaults, parseKustomization, type Resource, resources } from './kustomize.ts';

export type ComponentName = 'core' | 'bootstrap' | 'controlPlane';

/** The three managers and where each keeps its config inside the module. */
export const COMPONENTS: readonly { readonly name: ComponentName; readonly path: string }[] = [
  { name: 'core', path: '.' },
  { name: 'bootstrap', path: 'bootstrap/kubeadm' },
  { name: 'controlPlane', path: 'controlplane/kubeadm' },
];

/** A webhook server on loopback: its base URL and the base64 PEM of the CA that signed its certificate. */
export interface WebhookEndpoint {
  readonly url: string;
  readonly caBundle: string;
}

export interface ComponentManifests {
  readonly crds: Resource[];
  readonly webhookConfigurations: Resource[];
  /** The release's manager arguments, `${VAR:=default}` expanded, minus the flags the test env sets. */
  readonly args: string[];
}

/** Flags the test environment sets itself (ports, certificates, leader election, diagnostics). */
const OWN_FLAGS = [
  '--leader-elect',
  '--diagnostics-address',
  '--insecure-diagnostics',
  '--metrics-bind-addr',
  '--health-addr',
  '--webhook-port',
  '--webhook-cert-dir',
];

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Replaces a `clientConfig.service` with the local URL (the service's path kept) and the CA bundle. */
function localClientConfig(clientConfig: unknown, endpoint: WebhookEndpoint, origin: string): Json {
  if (!isObject(clientConfig) || !isObject(clientConfig['service'])) throw new EnvtestError(`${origin}: a webhook without clientConfig.service`);
  const path = typeof clientConfig['service']['path'] === 'string' ? clientConfig['service']['path'] : '/';
  return { url: `${endpoint.url}${path}`, caBundle: endpoint.caBundle };
}

/** A CRD whose conversion webhook (if any) is served at `endpoint`. */
export function localCrd(crd: Resource, endpoint: WebhookEndpoint): Resource {
  const spec = crd['spec'];
  if (!isObject(spec) || !isObject(spec['conversion']) || spec['conversion']['strategy'] !== 'Webhook') return crd;
  const webhook = spec['conversion']['webhook'];
  if (!isObject(webhook)) throw new EnvtestError(`CRD ${crd.metadata.name}: conversion strategy Webhook without a webhook`);
  const clientConfig = localClientConfig(webhook['clientConfig'], endpoint, `CRD ${crd.metadata.name}`);
  return { ...crd, spec: { ...spec, conversion: { ...spec['conversion'], webhook: { ...webhook, clientConfig } } } };
}

/** A Mutating/ValidatingWebhookConfiguration named `prefix + name`, every webhook served at `endpoint`. */
export function localWebhookConfiguration(config: Resource, prefix: string, endpoint: WebhookEndpoint): Resource {
  const origin = `${config.kind} ${config.metadata.name}`;
  const webhooks = Array.isArray(config['webhooks']) ? config['webhooks'] : [];
  return {
    ...config,
    metadata: { ...config.metadata, name: `${prefix}${config.metadata.name}` },
    webhooks: webhooks.map((w: unknown) => (isObject(w) ? { ...w, clientConfig: localClientConfig(w['clientConfig'], endpoint, origin) } : w)),
  };
}

/** The `manager` container's arguments of the release's Deployment, expanded, without OWN_FLAGS. */
export function managerArgs(managerYaml: string, origin: string): string[] {
  const deployment = resources(managerYaml, origin).find((r) => r.kind === 'Deployment');
  const spec = deployment?.['spec'];
  const podSpec = isObject(spec) && isObject(spec['template']) ? spec['template']['spec'] : undefined;
  const containers = isObject(podSpec) && Array.isArray(podSpec['containers']) ? (podSpec['containers'] as unknown[]) : [];
  const manager = containers.find((c): c is Json => isObject(c) && c['name'] === 'manager');
  if (!manager) throw new EnvtestError(`${origin}: no Deployment with a container named manager`);
  const args = Array.isArray(manager['args']) ? manager['args'].map(String) : [];
  return args.map((a) => expandDefaults(a, origin)).filter((a) => !OWN_FLAGS.includes(a.split('=')[0]!));
}

const under = (componentPath: string, p: string) => (componentPath === '.' ? p : `${componentPath}/${p}`);

/** One component's CRDs as its config/crd kustomization builds them, conversion served at `endpoint`. */
export function componentCrds(read: (path: string) => string, componentPath: string, endpoint: WebhookEndpoint): Resource[] {
  const crdDir = under(componentPath, 'config/crd');
  const kustomization = parseKustomization(read(`${crdDir}/kustomization.yaml`), `${crdDir}/kustomization.yaml`);
  return build(kustomization, (p) => read(`${crdDir}/${p}`), crdDir).map((crd) => localCrd(crd, endpoint));
}

/** One component's manifests, read through `read` (a path relative to the release directory). */
export function componentManifests(read: (path: string) => string, componentPath: string, endpoint: WebhookEndpoint): ComponentManifests {
  const at = (p: string) => under(componentPath, p);
  const crds = componentCrds(read, componentPath, endpoint);
  const prefix = parseKustomization(read(at('config/default/kustomization.yaml')), at('config/default/kustomization.yaml')).namePrefix;
  const webhookConfigurations = resources(read(at('config/webhook/manifests.yaml')), at('config/webhook/manifests.yaml'))
    .filter((r) => r.kind === 'MutatingWebhookConfiguration' || r.kind === 'ValidatingWebhookConfiguration')
    .map((r) => localWebhookConfiguration(r, prefix, endpoint));
  return { crds, webhookConfigurations, args: managerArgs(read(at('config/manager/manager.yaml')), at('config/manager/manager.yaml')) };
}
