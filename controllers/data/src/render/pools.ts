// Which IP pools a template draws from (DR-20), and looking allocations up
// while rendering. Upstream keys everything by pool name: two references with
// the same name must agree on group and kind.

import type { Metal3DataTemplateSpec } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { type AnnotationRef, annotationValue } from './objects.ts';
import {
  METAL3_IPAM_GROUP,
  METAL3_IPAM_POOL_KIND,
  type PoolAllocation,
  type PoolRef,
  type PoolRefInput,
  type RelatedObjects,
  type RenderContext,
  RenderError,
} from './types.ts';

/** Empty group and kind mean a Metal3 IPAM IPPool (DR-20). */
export function defaultPoolRef(ref: PoolRefInput): PoolRef {
  return {
    name: ref.name,
    apiGroup: ref.apiGroup === undefined || ref.apiGroup === '' ? METAL3_IPAM_GROUP : ref.apiGroup,
    kind: ref.kind === undefined || ref.kind === '' ? METAL3_IPAM_POOL_KIND : ref.kind,
  };
}

/** True for references served by Metal3 IPAM IPClaims rather than CAPI IPAddressClaims (D-15). */
export function isMetal3IPPool(ref: PoolRefInput): boolean {
  const group = ref.apiGroup ?? '';
  const kind = ref.kind ?? '';
  return (group === METAL3_IPAM_GROUP && kind === METAL3_IPAM_POOL_KIND) || (group === '' && kind === '');
}

interface RouteLike {
  gateway?: { fromIPPool?: string; fromPoolRef?: PoolRefInput; fromPoolAnnotation?: AnnotationRef };
  services?: { dnsFromIPPool?: string };
}

/**
 * Every pool the template needs an address from, each name once, in template
 * order (DR-20). With `objects` (the machine context), pools named through
 * `fromPoolAnnotation` are resolved too, and an empty or missing annotation is
 * an error; without it they are skipped, as upstream does when releasing
 * (E-18). Throws RenderError for conflicting references.
 */
export function poolsReferenced(spec: Metal3DataTemplateSpec, objects?: RelatedObjects): PoolRef[] {
  return [...collectPools(spec, objects, true).values()];
}

/** Name → reference map used while rendering; never throws (conflicts surface in poolsReferenced). */
export function poolIndex(spec: Metal3DataTemplateSpec, objects: RelatedObjects): ReadonlyMap<string, PoolRef> {
  return collectPools(spec, objects, false);
}

function collectPools(spec: Metal3DataTemplateSpec, objects: RelatedObjects | undefined, strict: boolean): Map<string, PoolRef> {
  const pools = new Map<string, PoolRef>();
  const add = (input: PoolRefInput, field: string): void => {
    const ref = defaultPoolRef(input);
    const existing = pools.get(ref.name);
    if (existing === undefined) {
      pools.set(ref.name, ref);
    } else if (strict && (existing.apiGroup !== ref.apiGroup || existing.kind !== ref.kind)) {
      throw new RenderError('PoolTypeConflict', field, 'multiple references with the same name but different resource types');
    }
  };
  const addName = (name: string | undefined, field: string): void => {
    if (name !== undefined && name !== '') add({ name }, field);
  };
  const addAnnotation = (ref: AnnotationRef, field: string): void => {
    if (objects === undefined) return;
    let value: string;
    try {
      value = annotationValue(ref, objects, field);
    } catch (err) {
      if (strict) throw err;
      return;
    }
    if (value === '') {
      if (strict) throw new RenderError('AnnotationMissing', field, `annotation ${ref.annotation} not found or empty on ${ref.object}`);
      return;
    }
    add({ name: value }, field);
  };
  const addRoutes = (routes: readonly RouteLike[] | undefined, base: string, withAnnotations: boolean): void => {
    (routes ?? []).forEach((route, i) => {
      const at = `${base}.routes[${i}]`;
      const gateway = route.gateway;
      // Upstream's if/else-if chain lets an annotation and a later reference both count.
      if (withAnnotations && gateway?.fromPoolAnnotation !== undefined) addAnnotation(gateway.fromPoolAnnotation, `${at}.gateway.fromPoolAnnotation`);
      if (gateway?.fromPoolRef !== undefined && gateway.fromPoolRef.name !== '') add(gateway.fromPoolRef, `${at}.gateway.fromPoolRef`);
      else addName(gateway?.fromIPPool, `${at}.gateway.fromIPPool`);
      addName(route.services?.dnsFromIPPool, `${at}.services.dnsFromIPPool`);
    });
  };

  const meta = spec.metaData;
  if (meta !== undefined) {
    const lists = [
      ['ipAddressesFromIPPool', meta.ipAddressesFromIPPool],
      ['prefixesFromIPPool', meta.prefixesFromIPPool],
      ['gatewaysFromIPPool', meta.gatewaysFromIPPool],
      ['dnsServersFromIPPool', meta.dnsServersFromIPPool],
    ] as const;
    for (const [name, entries] of lists) {
      (entries ?? []).forEach((entry, i) => add(entry, `spec.metaData.${name}[${i}]`));
    }
  }
  const net = spec.networkData;
  if (net !== undefined) {
    for (const family of ['ipv4', 'ipv6'] as const) {
      (net.networks?.[family] ?? []).forEach((network, i) => {
        const at = `spec.networkData.networks.${family}[${i}]`;
        if (network.fromPoolAnnotation !== undefined) addAnnotation(network.fromPoolAnnotation, `${at}.fromPoolAnnotation`);
        if (network.fromPoolRef !== undefined && network.fromPoolRef.name !== '') add(network.fromPoolRef, `${at}.fromPoolRef`);
        else addName(network.ipAddressFromIPPool, `${at}.ipAddressFromIPPool`);
        addRoutes(network.routes, at, true);
      });
    }
    for (const family of ['ipv4DHCP', 'ipv6DHCP', 'ipv6SLAAC'] as const) {
      (net.networks?.[family] ?? []).forEach((network, i) => {
        // E-27: annotation-named gateways of DHCP/SLAAC networks are not collected upstream.
        addRoutes(network.routes, `spec.networkData.networks.${family}[${i}]`, false);
      });
    }
    addName(net.services?.dnsFromIPPool, 'spec.networkData.services.dnsFromIPPool');
  }
  return pools;
}

/**
 * The allocation for pool `name`, or a RenderError naming `field` with
 * upstream's `message` ("Pool not found in cache" / "Failed to fetch pool from cache").
 */
export function allocationOf(
  ctx: RenderContext,
  index: ReadonlyMap<string, PoolRef>,
  name: string,
  field: string,
  message = 'Pool not found in cache',
): PoolAllocation {
  const ref = index.get(name) ?? defaultPoolRef({ name });
  const allocation = ctx.allocationFor(ref);
  if (allocation === undefined) throw new RenderError('PoolNotFound', field, message);
  return allocation;
}
