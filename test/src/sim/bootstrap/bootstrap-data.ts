// Reading rendered bootstrap data back, as a booting host would: the kubeadm config file from the
// cloud-config or Ignition, and from it the node registration (node name, kubelet extra arguments,
// `node-labels`). The workload-cluster simulator uses this to make the Node a kubelet would register;
// values are returned as written, Jinja templates (`{{ ds.meta_data.uuid }}`) unexpanded.
import { parse, parseAllDocuments } from 'yaml';
import { KUBEADM_INIT_CONFIG_PATH, KUBEADM_JOIN_CONFIG_PATH } from './plan.ts';

export interface NodeRegistration {
  /** `nodeRegistration.name`, when the config sets one (else the kubelet uses the hostname). */
  readonly name?: string;
  readonly kubeletExtraArgs: Readonly<Record<string, string>>;
  /** The `node-labels` kubelet argument as a map. */
  readonly nodeLabels: Readonly<Record<string, string>>;
  /** `InitConfiguration` or `JoinConfiguration`. */
  readonly kind: string;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const KUBEADM_PATHS = new Set([KUBEADM_INIT_CONFIG_PATH, KUBEADM_JOIN_CONFIG_PATH]);

function decodeDataUrl(url: string): string | undefined {
  const comma = url.indexOf(',');
  if (!url.startsWith('data:') || comma < 0) return undefined;
  const body = url.slice(comma + 1);
  if (!url.slice(0, comma).endsWith(';base64')) return decodeURIComponent(body);
  const bytes = Uint8Array.from(atob(body), (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

/** The kubeadm configuration file carried by bootstrap data in either format, if any. */
export function kubeadmConfigFileOf(value: string): string | undefined {
  if (value.trimStart().startsWith('{')) {
    const files = (JSON.parse(value) as { storage?: { files?: { path?: string; contents?: { source?: string } }[] } }).storage?.files ?? [];
    const file = files.find((f) => f.path !== undefined && KUBEADM_PATHS.has(f.path));
    return file?.contents?.source ? decodeDataUrl(file.contents.source) : undefined;
  }
  const doc: unknown = parse(value);
  const files = isObject(doc) && Array.isArray(doc['write_files']) ? (doc['write_files'] as unknown[]) : [];
  const file = files.find((f): f is Json => isObject(f) && typeof f['path'] === 'string' && KUBEADM_PATHS.has(f['path']));
  return typeof file?.['content'] === 'string' ? file['content'] : undefined;
}

/** `a=1,b=2` → {a: '1', b: '2'} (kubelet's --node-labels syntax). */
export function parseNodeLabels(text: string | undefined): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const item of (text ?? '').split(',')) {
    const pair = item.trim();
    if (!pair) continue;
    const eq = pair.indexOf('=');
    if (eq < 0) labels[pair] = '';
    else labels[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return labels;
}

/** kubelet extra arguments as a map, from kubeadm v1beta3 (map) or v1beta4 (list of {name, value}). */
function argsMap(args: unknown): Record<string, string> {
  if (Array.isArray(args)) {
    return Object.fromEntries(args.filter(isObject).map((a) => [String(a['name'] ?? ''), String(a['value'] ?? '')]));
  }
  return isObject(args) ? Object.fromEntries(Object.entries(args).map(([k, v]) => [k, String(v)])) : {};
}

/** The node registration of bootstrap data (`value` of the bootstrap Secret), if it has a kubeadm config. */
export function readNodeRegistration(value: string): NodeRegistration | undefined {
  const file = kubeadmConfigFileOf(value);
  if (file === undefined) return undefined;
  for (const document of parseAllDocuments(file)) {
    const doc: unknown = document.toJS();
    if (!isObject(doc) || (doc['kind'] !== 'InitConfiguration' && doc['kind'] !== 'JoinConfiguration')) continue;
    const registration = isObject(doc['nodeRegistration']) ? doc['nodeRegistration'] : {};
    const kubeletExtraArgs = argsMap(registration['kubeletExtraArgs']);
    return {
      kind: doc['kind'],
      ...(typeof registration['name'] === 'string' ? { name: registration['name'] } : {}),
      kubeletExtraArgs,
      nodeLabels: parseNodeLabels(kubeletExtraArgs['node-labels']),
    };
  }
  return undefined;
}
