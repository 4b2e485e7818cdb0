// v1beta2's CRD defaults (the `default:` keywords of our crds/*.yaml, v1beta2), applied to every hub the
// rules produce. Why the rules default at all: the apiserver fills in the storage version's defaults
// whenever it decodes an object from etcd, before converting it. A v1beta1 write is stored as the
// webhook converted it, so without this the hub a v1beta1 read starts from (defaulted on the way out of
// etcd) is more than the hub the restore expects from the saved v1beta1 body, and every default
// (a pool reference's kind, `timeoutSeconds: 600`, `cloudProviderEnabled: false`, an MTU) reads as a v1beta2
// edit: the saved v1beta1-only content around it (templateReference, an unset timeout, ...) was dropped.
// Producing the hub the apiserver would store and read back makes both sides of the restore's
// comparison the same form. (The alternative, a restore comparing modulo defaults, would have to
// guess whether a default-valued field was written by a v1beta2 client; the apiserver cannot tell
// either, so a defaulted hub is simply what v1beta2 means.) The list is by hand so the rules stay
// plain data; `defaults.test.ts` fails when it and the CRDs' keywords differ.
import { isMap, type Json, type JsonMap } from './json.ts';

/** A dotted path from the body (`spec.a[].b`: `[]` is every item of a list) and the value it defaults to. */
export type Default = readonly [path: string, value: Json];

const pool = (at: string): Default[] => [[`${at}.apiGroup`, 'ipam.metal3.io'], [`${at}.kind`, 'IPPool']];
const gatewayPools = ['ipv4', 'ipv4DHCP', 'ipv6', 'ipv6DHCP', 'ipv6SLAAC'].flatMap((f) =>
  pool(`spec.networkData.networks.${f}[].routes[].gateway.fromPoolRef`)
);

export const hubDefaults: Readonly<Record<string, readonly Default[]>> = {
  Metal3Cluster: [['spec.cloudProviderEnabled', false], ['spec.controlPlaneEndpoint.port', 6443]],
  Metal3MachineTemplate: [['spec.nodeReuse', false]],
  Metal3DataTemplate: [
    ...['ipAddresses', 'prefixes', 'gateways', 'dnsServers'].flatMap((m) => pool(`spec.metaData.${m}FromPool[]`)),
    ['spec.metaData.indexes[].step', 1],
    ...['bonds', 'ethernets', 'vlans'].map((l): Default => [`spec.networkData.links.${l}[].mtu`, 1500]),
    ...pool('spec.networkData.networks.ipv4[].fromPoolRef'),
    ...pool('spec.networkData.networks.ipv6[].fromPoolRef'),
    ...gatewayPools,
  ],
  Metal3Remediation: [['spec.strategy.retryLimit', 1], ['spec.strategy.timeoutSeconds', 600]],
  Metal3RemediationTemplate: [
    ['spec.template.spec.strategy.retryLimit', 1],
    ['spec.template.spec.strategy.timeoutSeconds', 600],
    ['spec.template.spec.strategy.type', 'Reboot'],
  ],
};

/**
 * `body` (a v1beta2 body without metadata) with `kind`'s defaults where a member is absent and its
 * parent object exists, as the apiserver defaults: never inside a value that is not an object, never
 * creating a parent. A copy; `body` is not changed.
 */
export function applyHubDefaults(kind: string, body: JsonMap): JsonMap {
  const all = hubDefaults[kind];
  if (!all) return body;
  const out = structuredClone(body);
  for (const [path, value] of all) fill(out, path.split('.'), value);
  return out;
}

function fill(at: Json | undefined, path: readonly string[], value: Json): void {
  const [head, ...rest] = path;
  if (head === undefined || !isMap(at)) return;
  if (head.endsWith('[]')) {
    const list = at[head.slice(0, -2)];
    if (Array.isArray(list)) { for (const item of list) fill(item, rest, value); }
  } else if (rest.length > 0) fill(at[head], rest, value);
  else if (!(head in at)) at[head] = structuredClone(value);
}
