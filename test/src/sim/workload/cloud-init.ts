// What cloud-init on a provisioned host sees: the meta_data baremetal-operator puts on the config
// drive, and the user data after cloud-init's Jinja pass. Pure functions over text.
//
// Covered: BMO's default meta_data keys (uuid = the BareMetalHost's uid, metal3-namespace,
// metal3-name, local-hostname, local_hostname, name = the host's name) overlaid by the flat YAML map
// of the host's `spec.metaData` Secret (key `metaData`), as BMO merges them; the hostname cloud-init
// sets; `{{ ds.meta_data.<key> }}`, `{{ ds.meta_data['<key>'] }}`, `{{ v1.local_hostname }}` and
// `{{ v1.instance_id }}` expressions, an unknown variable rendering as cloud-init's
// `CI_MISSING_JINJA_VAR/<name>`.
// Not covered: Jinja statements (`{% %}`), filters, any other instance-data key. Expressions are
// rendered whether or not the user data starts with `## template: jinja` (cloud-init renders only
// then; CAPBK always writes the header, and a simulator should not punish a simplified bootstrap).
import { parse } from 'yaml';

/** The config-drive meta_data: a flat map of strings. */
export type MetaData = Readonly<Record<string, string>>;

/** The host fields BMO builds its default meta_data from. */
export interface HostIdentity {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

/** A `spec.metaData` or `spec.userData` Secret that cannot be read as cloud-init would read it. */
export class CloudInitDataError extends Error {
  override name = 'CloudInitDataError';
}

/**
 * Parses the `metaData` Secret value: a YAML mapping whose scalar values become strings. Empty text
 * is an empty map; anything else that is not a mapping is an error (BMO fails to build the drive).
 */
export function parseMetaDataSecret(text: string): MetaData {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = parse(text);
  } catch (error) {
    throw new CloudInitDataError(`metaData is not YAML: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new CloudInitDataError('metaData is not a YAML mapping');
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (v === null || v === undefined) continue;
    out[key] = typeof v === 'object' ? JSON.stringify(v) : String(v);
  }
  return out;
}

/** BMO's defaults with the Secret's keys on top (a Secret key wins). */
export function hostMetaData(host: HostIdentity, fromSecret: MetaData = {}): MetaData {
  return {
    uuid: host.uid,
    'metal3-namespace': host.namespace,
    'metal3-name': host.name,
    'local-hostname': host.name,
    local_hostname: host.name,
    name: host.name,
    ...fromSecret,
  };
}

/**
 * The hostname cloud-init gives the machine, which the kubelet registers as its Node name unless
 * kubeadm names the node: the Secret's `local-hostname`, else its `local_hostname`, else the host's
 * name (BMO's default for both keys). Lower-cased, as the kubelet lower-cases the hostname.
 */
export function cloudInitHostname(host: HostIdentity, fromSecret: MetaData = {}): string {
  const pick = fromSecret['local-hostname'] || fromSecret['local_hostname'] || host.name;
  return pick.trim().toLowerCase();
}

const EXPRESSION = /\{\{\s*([^{}]*?)\s*\}\}/g;
const DS_DOTTED = /^ds\.meta_data\.([A-Za-z_][A-Za-z0-9_]*)$/;
const DS_INDEXED = /^ds\.meta_data\[\s*(?:'([^']*)'|"([^"]*)")\s*\]$/;

function lookup(expression: string, metaData: MetaData): string {
  const dotted = DS_DOTTED.exec(expression);
  const indexed = DS_INDEXED.exec(expression);
  const key = dotted?.[1] ?? indexed?.[1] ?? indexed?.[2];
  if (key !== undefined) return metaData[key] ?? `CI_MISSING_JINJA_VAR/${key}`;
  if (expression === 'v1.local_hostname') return metaData['local-hostname'] ?? 'CI_MISSING_JINJA_VAR/local_hostname';
  if (expression === 'v1.instance_id') return metaData['uuid'] ?? 'CI_MISSING_JINJA_VAR/instance_id';
  return `CI_MISSING_JINJA_VAR/${expression}`;
}

/** Renders the `{{ … }}` expressions of user data against the host's meta_data. */
export function renderJinja(text: string, metaData: MetaData): string {
  return text.replace(EXPRESSION, (_, expression: string) => lookup(expression, metaData));
}
