// Network data rendering (DR-14 … DR-19, B2-22, B2-24): the OpenStack
// network_data.json layout, always all three of `links`, `networks` and
// `services` (empty lists when the template has none), serialised as YAML.

import type { Metal3DataTemplateSpec } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { ipv4Mask, ipv6Mask } from './masks.ts';
import { type AnnotationRef, annotationValue, linkMac, type MacSource } from './objects.ts';
import { allocationOf, poolIndex } from './pools.ts';
import { type PoolRef, type PoolRefInput, type RenderContext, RenderError } from './types.ts';
import { toYaml, type YamlValue } from './yaml.ts';

type Family = 'v4' | 'v6';
type Json = YamlValue;
type Pools = ReadonlyMap<string, PoolRef>;

interface RouteSpec {
  network?: string;
  prefix?: number;
  gateway?: { string?: string; fromIPPool?: string; fromPoolRef?: PoolRefInput; fromPoolAnnotation?: AnnotationRef };
  services?: { dns?: string[]; dnsFromIPPool?: string };
}

interface StaticNetworkSpec {
  id: string;
  link: string;
  ipAddressFromIPPool?: string;
  fromPoolRef?: PoolRefInput;
  fromPoolAnnotation?: AnnotationRef;
  routes?: RouteSpec[];
}

interface DynamicNetworkSpec {
  id: string;
  link: string;
  routes?: RouteSpec[];
}

/** The network data document before serialisation. */
export function networkDataDocument(spec: Metal3DataTemplateSpec, ctx: RenderContext): { links: Json[]; networks: Json[]; services: Json[] } {
  const net = spec.networkData;
  if (net === undefined) throw new RenderError('NotRequested', 'spec.networkData', 'template has no networkData');
  const pools = poolIndex(spec, ctx);
  return {
    links: renderLinks(spec, ctx),
    networks: renderNetworks(spec, ctx, pools),
    services: dnsServices(net.services, ctx, pools, 'spec.networkData.services'),
  };
}

/**
 * The `networkData` Secret value for this machine, byte-identical to
 * upstream. Throws RenderError when the template cannot be rendered, or when
 * it has no networkData (callers render only when `spec.networkData` is set, D-9).
 */
export function renderNetworkData(spec: Metal3DataTemplateSpec, ctx: RenderContext): string {
  return toYaml(networkDataDocument(spec, ctx));
}

const MTU_DEFAULT = 1500;
// Keys a bond parameter may not shadow: `bond_<name>` already set from the structured fields.
const STRUCTURED_BOND_KEYS = new Set(['bond_mode', 'bond_xmit_hash_policy', 'bond_links']);

function renderLinks(spec: Metal3DataTemplateSpec, ctx: RenderContext): Json[] {
  const links = spec.networkData?.links;
  const base = 'spec.networkData.links';
  const out: Json[] = [];
  (links?.bonds ?? []).forEach((bond, i) => {
    const at = `${base}.bonds[${i}]`;
    const entry: Record<string, Json> = {
      type: 'bond',
      id: bond.id,
      mtu: bond.mtu ?? MTU_DEFAULT,
      ...linkIdentity(bond, 'ethernet_mac_address', ctx, at),
      bond_mode: bond.bondMode,
      bond_xmit_hash_policy: bond.bondXmitHashPolicy ?? '',
      bond_links: bond.bondLinks ?? null,
    };
    const params = bond.parameters ?? {};
    const illegal = Object.keys(params).filter((name) => STRUCTURED_BOND_KEYS.has(`bond_${name}`));
    if (illegal.length > 0) {
      throw new RenderError(
        'IllegalBondParameters',
        `${at}.parameters`,
        `illegal params "${illegal.join('", "')}" into bond params blob into link id=${bond.id}`,
      );
    }
    for (const [name, value] of Object.entries(params)) entry[`bond_${name}`] = value;
    out.push(entry);
  });
  (links?.ethernets ?? []).forEach((eth, i) => {
    out.push({
      type: eth.type,
      id: eth.id,
      mtu: eth.mtu ?? MTU_DEFAULT,
      ...linkIdentity(eth, 'ethernet_mac_address', ctx, `${base}.ethernets[${i}]`),
    });
  });
  (links?.vlans ?? []).forEach((vlan, i) => {
    out.push({
      type: 'vlan',
      id: vlan.id,
      mtu: vlan.mtu ?? MTU_DEFAULT,
      ...linkIdentity(vlan, 'vlan_mac_address', ctx, `${base}.vlans[${i}]`),
      vlan_id: vlan.vlanID,
      vlan_link: vlan.vlanLink,
    });
  });
  return out;
}

/**
 * B2-22: a link's `name` when set, and its MAC under `macKey` only when the template gives a MAC
 * source (our CRD still requires one, as upstream's does, S-7; a source that does not resolve to a
 * MAC is an error, DR-14).
 */
function linkIdentity(link: { name?: string; macAddress?: MacSource }, macKey: string, ctx: RenderContext, at: string): Record<string, Json> {
  return {
    ...(link.name !== undefined && link.name !== '' ? { name: link.name } : {}),
    ...(link.macAddress !== undefined ? { [macKey]: linkMac(link.macAddress, ctx, `${at}.macAddress`) } : {}),
  };
}

function renderNetworks(spec: Metal3DataTemplateSpec, ctx: RenderContext, pools: Pools): Json[] {
  const networks = spec.networkData?.networks;
  const base = 'spec.networkData.networks';
  const out: Json[] = [];
  const statics: Array<['ipv4' | 'ipv6', Family, readonly StaticNetworkSpec[] | undefined]> = [
    ['ipv4', 'v4', networks?.ipv4],
    ['ipv6', 'v6', networks?.ipv6],
  ];
  for (const [type, family, list] of statics) {
    (list ?? []).forEach((network, i) => {
      const at = `${base}.${type}[${i}]`;
      const [poolName, poolField] = staticPool(network, ctx, at);
      const allocation = allocationOf(ctx, pools, poolName, poolField);
      out.push({
        type,
        id: network.id,
        link: network.link,
        ip_address: allocation.address,
        netmask: mask(allocation.prefix, family, poolField),
        routes: renderRoutes(network.routes, family, ctx, pools, at),
      });
    });
  }
  const dynamics: Array<['ipv4_dhcp' | 'ipv6_dhcp' | 'ipv6_slaac', string, Family, readonly DynamicNetworkSpec[] | undefined]> = [
    ['ipv4_dhcp', 'ipv4DHCP', 'v4', networks?.ipv4DHCP],
    ['ipv6_dhcp', 'ipv6DHCP', 'v6', networks?.ipv6DHCP],
    ['ipv6_slaac', 'ipv6SLAAC', 'v6', networks?.ipv6SLAAC],
  ];
  for (const [type, field, family, list] of dynamics) {
    (list ?? []).forEach((network, i) => {
      out.push({
        type,
        id: network.id,
        link: network.link,
        routes: renderRoutes(network.routes, family, ctx, pools, `${base}.${field}[${i}]`),
      });
    });
  }
  return out;
}

/** Pool name of a static network and the template field it came from (DR-16). */
function staticPool(network: StaticNetworkSpec, ctx: RenderContext, at: string): [string, string] {
  if (network.fromPoolAnnotation !== undefined) {
    const field = `${at}.fromPoolAnnotation`;
    return [annotationValue(network.fromPoolAnnotation, ctx, field), field];
  }
  if (network.fromPoolRef !== undefined && network.fromPoolRef.name !== '') {
    return [network.fromPoolRef.name, `${at}.fromPoolRef.name`];
  }
  return [network.ipAddressFromIPPool ?? '', `${at}.ipAddressFromIPPool`];
}

function renderRoutes(routes: readonly RouteSpec[] | undefined, family: Family, ctx: RenderContext, pools: Pools, at: string): Json[] {
  return (routes ?? []).map((route, i) => {
    const field = `${at}.routes[${i}]`;
    return {
      network: route.network ?? '',
      netmask: mask(route.prefix ?? 0, family, `${field}.prefix`),
      gateway: routeGateway(route, ctx, pools, `${field}.gateway`),
      services: dnsServices(route.services, ctx, pools, `${field}.services`),
    };
  });
}

/** DR-17: literal gateway, else the gateway of the pool named by annotation, reference or name. */
function routeGateway(route: RouteSpec, ctx: RenderContext, pools: Pools, at: string): string {
  const gateway = route.gateway;
  const fromPool = (name: string, field: string): string => allocationOf(ctx, pools, name, field, 'Failed to fetch pool from cache').gateway ?? '';
  if (gateway?.string !== undefined) return gateway.string;
  if (gateway?.fromPoolAnnotation !== undefined) {
    const field = `${at}.fromPoolAnnotation`;
    return fromPool(annotationValue(gateway.fromPoolAnnotation, ctx, field), field);
  }
  if (gateway?.fromPoolRef !== undefined && gateway.fromPoolRef.name !== '') {
    return fromPool(gateway.fromPoolRef.name, `${at}.fromPoolRef.name`);
  }
  if (gateway?.fromIPPool !== undefined) return fromPool(gateway.fromIPPool, `${at}.fromIPPool`);
  return '';
}

/** DR-17/DR-18: literal DNS servers, then those of `dnsFromIPPool`'s allocation. */
function dnsServices(services: RouteSpec['services'], ctx: RenderContext, pools: Pools, at: string): Json[] {
  const out: Json[] = (services?.dns ?? []).map((address) => ({ type: 'dns', address }));
  if (services?.dnsFromIPPool !== undefined) {
    const allocation = allocationOf(ctx, pools, services.dnsFromIPPool, `${at}.dnsFromIPPool`);
    for (const address of allocation.dnsServers ?? []) out.push({ type: 'dns', address });
  }
  return out;
}

function mask(prefix: number, family: Family, field: string): string {
  const text = family === 'v4' ? ipv4Mask(prefix) : ipv6Mask(prefix);
  if (text === undefined) {
    const bits = family === 'v4' ? 32 : 128;
    throw new RenderError('BadPrefix', field, `prefix ${prefix} is not between 0 and ${bits}`);
  }
  return text;
}
