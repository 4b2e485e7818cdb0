// The kubelet's `--node-labels` flag: parsing and the checks that make the kubelet refuse to start.
// Pure. A kubelet that refuses to start never registers, so a bad label means no Node at all, which
// is what a user of the real stack would see.

/** Labels the kubelet may set on its own Node in the kubernetes.io / k8s.io namespaces. */
const KUBELET_LABELS: ReadonlySet<string> = new Set([
  'kubernetes.io/hostname',
  'kubernetes.io/instance-type',
  'kubernetes.io/os',
  'kubernetes.io/arch',
  'beta.kubernetes.io/instance-type',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/arch',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'node.kubernetes.io/instance-type',
]);

/** Namespaces (and their subdomains) reserved for the kubelet's own use, so always allowed. */
const KUBELET_NAMESPACES = ['kubelet.kubernetes.io', 'node.kubernetes.io'];

const NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export class NodeLabelError extends Error {
  override name = 'NodeLabelError';
}

function checkKey(key: string): void {
  const slash = key.indexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : '';
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (slash >= 0 && (prefix === '' || prefix.length > 253 || !SUBDOMAIN.test(prefix))) {
    throw new NodeLabelError(`invalid label key ${JSON.stringify(key)}: bad prefix`);
  }
  if (name.length > 63 || !NAME.test(name)) throw new NodeLabelError(`invalid label key ${JSON.stringify(key)}`);
  const restricted = ['kubernetes.io', 'k8s.io'].some((ns) => prefix === ns || prefix.endsWith(`.${ns}`));
  const allowed = KUBELET_LABELS.has(key) || KUBELET_NAMESPACES.some((ns) => prefix === ns || prefix.endsWith(`.${ns}`));
  if (restricted && !allowed) throw new NodeLabelError(`unknown 'kubernetes.io' or 'k8s.io' label ${JSON.stringify(key)} specified with --node-labels`);
}

function checkValue(key: string, value: string): void {
  if (value !== '' && (value.length > 63 || !NAME.test(value))) {
    throw new NodeLabelError(`invalid value ${JSON.stringify(value)} for label ${JSON.stringify(key)}`);
  }
}

/**
 * Parses `--node-labels` values (`k=v,k2=v2`, possibly several flags; later keys win) and checks
 * them as the kubelet does at start-up. Throws NodeLabelError for the first bad entry.
 */
export function parseNodeLabels(values: readonly string[]): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const value of values) {
    for (const entry of value.split(',')) {
      const item = entry.trim();
      if (item === '') continue;
      const eq = item.indexOf('=');
      if (eq < 0) throw new NodeLabelError(`invalid --node-labels entry ${JSON.stringify(item)}: want key=value`);
      const key = item.slice(0, eq).trim();
      const labelValue = item.slice(eq + 1).trim();
      checkKey(key);
      checkValue(key, labelValue);
      labels[key] = labelValue;
    }
  }
  return labels;
}

/** A Node name must be a DNS subdomain (lower case, at most 253 characters). */
export function isValidNodeName(name: string): boolean {
  return name.length > 0 && name.length <= 253 && SUBDOMAIN.test(name);
}
