// The kubeadm configuration file a KubeadmConfig turns into, as the kubeadm bootstrap provider
// (CABPK) writes it: ClusterConfiguration + InitConfiguration for the first control plane machine,
// JoinConfiguration for every other machine, in the kubeadm API version the machine's Kubernetes
// version reads (v1beta4 from 1.31, v1beta3 before), with the Cluster's endpoint and networking
// filled in where the config leaves them empty.
import type { Cluster, Machine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { KubeadmConfigSpec } from '@metal3-ts/generated/bootstrap.cluster.x-k8s.io/v1beta1';
import { stringify } from 'yaml';

export const KUBEADM_V1BETA3 = 'kubeadm.k8s.io/v1beta3';
export const KUBEADM_V1BETA4 = 'kubeadm.k8s.io/v1beta4';
export type KubeadmApiVersion = typeof KUBEADM_V1BETA3 | typeof KUBEADM_V1BETA4;

export const CONTROL_PLANE_LABEL = 'cluster.x-k8s.io/control-plane';

/** `init` writes ClusterConfiguration + InitConfiguration (`kubeadm init`); `join` a JoinConfiguration. */
export type BootstrapMode = 'init' | 'join';

/**
 * CABPK's choice, without its cluster-wide init lock: a control plane machine whose config has no
 * JoinConfiguration initialises the cluster (KubeadmControlPlane gives only its first machine such a
 * config); everything else joins.
 */
export function bootstrapMode(spec: KubeadmConfigSpec | undefined, machine: Readonly<Machine>): BootstrapMode {
  const controlPlane = machine.metadata.labels?.[CONTROL_PLANE_LABEL] !== undefined;
  return controlPlane && !spec?.joinConfiguration ? 'init' : 'join';
}

const VERSION = /^v?(\d+)\.(\d+)/;

/** v1beta4 from Kubernetes 1.31 on (as CABPK), v1beta3 before and when the version is unknown. */
export function kubeadmApiVersionFor(kubernetesVersion: string | undefined): KubeadmApiVersion {
  const m = kubernetesVersion ? VERSION.exec(kubernetesVersion) : null;
  if (!m) return KUBEADM_V1BETA3;
  const [major, minor] = [Number(m[1]), Number(m[2])];
  return major > 1 || (major === 1 && minor >= 31) ? KUBEADM_V1BETA4 : KUBEADM_V1BETA3;
}

/**
 * A bootstrap token (`[a-z0-9]{6}.[a-z0-9]{16}`) derived from `seed`. CABPK creates a random token in
 * the workload cluster; the simulator has no workload cluster to put it in, so it only needs one
 * that is well-formed and stable for a given config.
 */
export function bootstrapTokenFor(seed: string): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  let state = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) state = Math.imul(state ^ seed.charCodeAt(i), 0x01000193) >>> 0;
  let out = '';
  for (let i = 0; i < 22; i++) {
    // xorshift32: enough mixing for a deterministic, evenly spread token.
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    out += alphabet[state % alphabet.length];
  }
  return `${out.slice(0, 6)}.${out.slice(6)}`;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** kubeadm v1beta4 writes extra arguments as a list of {name, value}, sorted by name. */
function argList(args: unknown): unknown {
  if (!isObject(args)) return args;
  return Object.keys(args)
    .sort()
    .map((name) => ({ name, value: args[name] }));
}

function convertArgs(obj: Json | undefined, key: string, apiVersion: KubeadmApiVersion): void {
  if (!obj || obj[key] === undefined) return;
  if (apiVersion === KUBEADM_V1BETA4) obj[key] = argList(obj[key]);
}

/** A copy without `apiVersion`/`kind` (the renderer decides those) and with apiVersion/kind first. */
function document(apiVersion: KubeadmApiVersion, kind: string, body: object | undefined): Json {
  const { apiVersion: _v, kind: _k, ...rest } = structuredClone((body ?? {}) as Json);
  return { apiVersion, kind, ...rest };
}

function endpointOf(cluster: Readonly<Cluster> | undefined): string | undefined {
  const endpoint = cluster?.spec?.controlPlaneEndpoint;
  return endpoint?.host && endpoint.port ? `${endpoint.host}:${endpoint.port}` : undefined;
}

function adaptNodeRegistration(doc: Json, apiVersion: KubeadmApiVersion): void {
  const registration = isObject(doc['nodeRegistration']) ? doc['nodeRegistration'] : undefined;
  convertArgs(registration, 'kubeletExtraArgs', apiVersion);
  if (registration && apiVersion === KUBEADM_V1BETA3) delete registration['imagePullSerial'];
}

export function clusterConfiguration(
  spec: KubeadmConfigSpec,
  machine: Readonly<Machine>,
  cluster: Readonly<Cluster> | undefined,
  apiVersion: KubeadmApiVersion,
): Json {
  const doc = document(apiVersion, 'ClusterConfiguration', spec.clusterConfiguration);
  const network = cluster?.spec?.clusterNetwork;
  if (doc['controlPlaneEndpoint'] === undefined && endpointOf(cluster)) doc['controlPlaneEndpoint'] = endpointOf(cluster);
  if (doc['clusterName'] === undefined && cluster?.metadata.name) doc['clusterName'] = cluster.metadata.name;
  if (doc['kubernetesVersion'] === undefined && machine.spec?.version) doc['kubernetesVersion'] = machine.spec.version;
  const networking: Json = isObject(doc['networking']) ? doc['networking'] : {};
  if (networking['dnsDomain'] === undefined && network?.serviceDomain) networking['dnsDomain'] = network.serviceDomain;
  if (networking['podSubnet'] === undefined && network?.pods?.cidrBlocks.length) networking['podSubnet'] = network.pods.cidrBlocks.join(',');
  if (networking['serviceSubnet'] === undefined && network?.services?.cidrBlocks.length) networking['serviceSubnet'] = network.services.cidrBlocks.join(',');
  if (Object.keys(networking).length > 0) doc['networking'] = networking;
  for (const component of ['apiServer', 'controllerManager', 'scheduler']) {
    const c = isObject(doc[component]) ? doc[component] : undefined;
    convertArgs(c, 'extraArgs', apiVersion);
    // extraEnvs exist from v1beta4 on; the control plane timeout moved to InitConfiguration.timeouts.
    if (c && apiVersion === KUBEADM_V1BETA3) delete c['extraEnvs'];
    if (c && apiVersion === KUBEADM_V1BETA4) delete c['timeoutForControlPlane'];
  }
  const etcd = isObject(doc['etcd']) && isObject(doc['etcd']['local']) ? doc['etcd']['local'] : undefined;
  convertArgs(etcd, 'extraArgs', apiVersion);
  if (etcd && apiVersion === KUBEADM_V1BETA3) delete etcd['extraEnvs'];
  return doc;
}

export function initConfiguration(spec: KubeadmConfigSpec, apiVersion: KubeadmApiVersion): Json {
  const doc = document(apiVersion, 'InitConfiguration', spec.initConfiguration);
  adaptNodeRegistration(doc, apiVersion);
  const timeout = spec.clusterConfiguration?.apiServer?.timeoutForControlPlane;
  if (apiVersion === KUBEADM_V1BETA4 && timeout) doc['timeouts'] = { controlPlaneComponentHealthCheck: timeout };
  return doc;
}

export function joinConfiguration(
  spec: KubeadmConfigSpec,
  machine: Readonly<Machine>,
  cluster: Readonly<Cluster> | undefined,
  apiVersion: KubeadmApiVersion,
  token: string,
): Json {
  const doc = document(apiVersion, 'JoinConfiguration', spec.joinConfiguration);
  adaptNodeRegistration(doc, apiVersion);
  const discovery: Json = isObject(doc['discovery']) ? doc['discovery'] : {};
  if (discovery['file'] === undefined) {
    const given: Json = isObject(discovery['bootstrapToken']) ? discovery['bootstrapToken'] : {};
    const bootstrapToken: Json = { ...given };
    if (bootstrapToken['apiServerEndpoint'] === undefined && endpointOf(cluster)) bootstrapToken['apiServerEndpoint'] = endpointOf(cluster);
    bootstrapToken['token'] ??= token;
    // CABPK pins the cluster CA by hash; the simulator has no CA, so it says so instead.
    if (!Array.isArray(bootstrapToken['caCertHashes']) || bootstrapToken['caCertHashes'].length === 0) bootstrapToken['unsafeSkipCAVerification'] = true;
    discovery['bootstrapToken'] = bootstrapToken;
  }
  doc['discovery'] = discovery;
  if (machine.metadata.labels?.[CONTROL_PLANE_LABEL] !== undefined && doc['controlPlane'] === undefined) doc['controlPlane'] = {};
  return doc;
}

const asYaml = (doc: Json): string => stringify(doc, { lineWidth: 0 });

/** The content of the kubeadm config file: `---`-separated YAML documents. */
export function kubeadmConfigFile(
  spec: KubeadmConfigSpec,
  machine: Readonly<Machine>,
  cluster: Readonly<Cluster> | undefined,
  mode: BootstrapMode,
  token: string,
): string {
  const apiVersion = kubeadmApiVersionFor(machine.spec?.version ?? spec.clusterConfiguration?.kubernetesVersion);
  const docs = mode === 'init'
    ? [clusterConfiguration(spec, machine, cluster, apiVersion), initConfiguration(spec, apiVersion)]
    : [joinConfiguration(spec, machine, cluster, apiVersion, token)];
  return docs.map((d) => `---\n${asYaml(d)}`).join('');
}
