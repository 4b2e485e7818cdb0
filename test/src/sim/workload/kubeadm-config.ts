// What kubeadm (run by cloud-init from the bootstrap user data) tells the kubelet: the node name,
// the `node-labels` kubelet argument, whether this is a control-plane node and its taints. Pure:
// the input is user data already rendered by renderJinja.
//
// Covered: CAPBK's cloud-config shape — `write_files` entries (plain or `encoding: b64`) holding
// kubeadm YAML documents with `kind: InitConfiguration` or `JoinConfiguration`, `nodeRegistration`
// `{name, kubeletExtraArgs (v1beta3 map or v1beta4 [{name, value}] list), taints}` and a
// JoinConfiguration `controlPlane` section; of the kubelet arguments, `node-labels` and `provider-id`.
// When no kubeadm document is found (a simplified bootstrap, a shell script), `node-labels: …` /
// `provider-id: …` lines or `--node-labels=…` / `--provider-id=…` arguments anywhere in the text
// still count, and `kubeadm init` marks a control-plane node.
// Not covered: gzip-encoded files, `#include` and MIME multi-part user data, Ignition.
import { Buffer } from 'node:buffer';
import { parse, parseAllDocuments } from 'yaml';
import type { Taint } from '@metal3-ts/generated/core/v1';

export interface KubeletJoin {
  /** `nodeRegistration.name`: kubeadm passes it to the kubelet as `--hostname-override`. */
  readonly nodeName?: string | undefined;
  /** Every `node-labels` value found, in order (the kubelet merges repeated flags). */
  readonly nodeLabels: readonly string[];
  /** The kubelet's `provider-id` argument (the last one given), e.g. `metal3://ns/host/m3m`. */
  readonly providerId?: string | undefined;
  readonly controlPlane: boolean;
  /** `nodeRegistration.taints` when the config sets it (an empty list means "no taints"). */
  readonly taints?: readonly Taint[] | undefined;
  /** The ClusterConfiguration document of init data: what `kubeadm init` uploads to `kubeadm-config`. */
  readonly clusterConfiguration?: Readonly<Json> | undefined;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The files cloud-init writes, decoded. */
function writtenFiles(cloudConfig: Json): string[] {
  const files = Array.isArray(cloudConfig['write_files']) ? cloudConfig['write_files'] : [];
  const out: string[] = [];
  for (const file of files) {
    if (!isObject(file) || typeof file['content'] !== 'string') continue;
    const encoding = typeof file['encoding'] === 'string' ? file['encoding'].toLowerCase() : '';
    if (encoding === 'b64' || encoding === 'base64') out.push(Buffer.from(file['content'], 'base64').toString('utf8'));
    else if (encoding === '' || encoding === 'text/plain') out.push(file['content']);
  }
  return out;
}

const KUBEADM_KINDS = new Set(['InitConfiguration', 'JoinConfiguration', 'ClusterConfiguration']);

function kubeadmDocuments(text: string): Json[] {
  const docs: Json[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (!('toJS' in doc) || doc.errors.length > 0) continue;
    const value: unknown = doc.toJS();
    if (isObject(value) && KUBEADM_KINDS.has(String(value['kind']))) docs.push(value);
  }
  return docs;
}

/** The values of kubelet argument `name` in `kubeletExtraArgs`, in either kubeadm API shape. */
function kubeletArg(extraArgs: unknown, name: string): string[] {
  if (isObject(extraArgs)) {
    const value = extraArgs[name];
    return typeof value === 'string' ? [value] : [];
  }
  if (Array.isArray(extraArgs)) {
    return extraArgs.flatMap((arg) => (isObject(arg) && arg['name'] === name && typeof arg['value'] === 'string' ? [arg['value']] : []));
  }
  return [];
}

function taintsOf(value: unknown): Taint[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.filter(isObject).map((t) => ({
    key: String(t['key'] ?? ''),
    ...(t['value'] !== undefined ? { value: String(t['value']) } : {}),
    effect: String(t['effect'] ?? 'NoSchedule') as Taint['effect'],
  }));
}

function fromKubeadm(docs: readonly Json[]): KubeletJoin {
  // A control plane's init data holds InitConfiguration (plus ClusterConfiguration); a joining
  // node's holds JoinConfiguration. If both appear, kubeadm is run with the JoinConfiguration.
  const join = docs.find((d) => d['kind'] === 'JoinConfiguration');
  const config = join ?? docs.find((d) => d['kind'] === 'InitConfiguration') ?? {};
  const clusterConfiguration = join ? undefined : docs.find((d) => d['kind'] === 'ClusterConfiguration');
  const registration = isObject(config['nodeRegistration']) ? config['nodeRegistration'] : {};
  const name = typeof registration['name'] === 'string' && registration['name'].trim() !== '' ? registration['name'].trim() : undefined;
  const taints = 'taints' in registration ? taintsOf(registration['taints']) : undefined;
  const args = registration['kubeletExtraArgs'];
  return {
    nodeName: name,
    nodeLabels: kubeletArg(args, 'node-labels'),
    providerId: kubeletArg(args, 'provider-id').at(-1)?.trim() || undefined,
    controlPlane: join ? isObject(join['controlPlane']) : config['kind'] === 'InitConfiguration',
    ...(taints ? { taints } : {}),
    ...(clusterConfiguration ? { clusterConfiguration } : {}),
  };
}

const argLine = (name: string) => new RegExp(`^[\\s-]*["']?${name}["']?\\s*:\\s*(.*?)\\s*$`, 'gm');
const argFlag = (name: string) => new RegExp(`--${name}[= ](?:"([^"]*)"|'([^']*)'|([^\\s"']+))`, 'g');

/** Strips one level of YAML quotes from a scalar found by text search. */
function unquote(value: string): string {
  const m = /^(["'])(.*)\1$/.exec(value);
  return m ? (m[2] ?? '') : value;
}

/** Every value of kubelet argument `name` written as a YAML key or a command-line flag. */
function textArg(text: string, name: string): string[] {
  const values = [...text.matchAll(argLine(name))].map((m) => unquote(m[1] ?? '')).filter((v) => v !== '');
  for (const m of text.matchAll(argFlag(name))) values.push(m[1] ?? m[2] ?? m[3] ?? '');
  return values;
}

function fromText(text: string): KubeletJoin {
  return {
    nodeLabels: textArg(text, 'node-labels'),
    providerId: textArg(text, 'provider-id').at(-1)?.trim() || undefined,
    controlPlane: /\bkubeadm\s+init\b/.test(text),
  };
}

/** Reads rendered user data as cloud-init and kubeadm would. Never throws: unreadable data joins plainly. */
export function kubeletJoinFromUserData(rendered: string): KubeletJoin {
  let cloudConfig: unknown;
  try {
    cloudConfig = parse(rendered);
  } catch {
    cloudConfig = undefined;
  }
  const docs = isObject(cloudConfig) ? writtenFiles(cloudConfig).flatMap(kubeadmDocuments) : [];
  return docs.length > 0 ? fromKubeadm(docs) : fromText(rendered);
}
