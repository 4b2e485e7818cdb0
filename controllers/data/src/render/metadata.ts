// Metadata rendering (DR-4 … DR-13, B2-21): a flat string map, items applied in
// upstream's fixed order (a later item with the same key wins), `providerid`
// last, serialised as YAML.

import type { Metal3DataTemplateSpec } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { annotationValue, bootMac, hostNicMac, objectMeta } from './objects.ts';
import { allocationOf, poolIndex } from './pools.ts';
import { type RenderContext, RenderError } from './types.ts';
import { toYaml } from './yaml.ts';

/** The metadata map before serialisation (keys unordered; YAML sorts them). */
export function metaDataMap(spec: Metal3DataTemplateSpec, ctx: RenderContext): Record<string, string> {
  const meta = spec.metaData;
  if (meta === undefined) throw new RenderError('NotRequested', 'spec.metaData', 'template has no metaData');
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  const pools = poolIndex(spec, ctx);
  const base = 'spec.metaData';

  (meta.fromHostInterfaces ?? []).forEach((e, i) => {
    const at = `${base}.fromHostInterfaces[${i}]`;
    // B2-21: the boot MAC, else the named NIC's (an entry with neither is refused by the CRD, W2-7).
    out[e.key] = e.fromBootMAC === true ? bootMac(ctx, e.key, `${at}.fromBootMAC`) : hostNicMac(ctx, e.interface ?? '', `${at}.interface`);
  });
  (meta.ipAddressesFromIPPool ?? []).forEach((e, i) => {
    out[e.key] = allocationOf(ctx, pools, e.name, `${base}.ipAddressesFromIPPool[${i}].name`).address;
  });
  (meta.prefixesFromIPPool ?? []).forEach((e, i) => {
    out[e.key] = String(allocationOf(ctx, pools, e.name, `${base}.prefixesFromIPPool[${i}].name`).prefix);
  });
  (meta.gatewaysFromIPPool ?? []).forEach((e, i) => {
    out[e.key] = allocationOf(ctx, pools, e.name, `${base}.gatewaysFromIPPool[${i}].name`).gateway ?? '';
  });
  const index = ctx.data.spec?.index ?? 0;
  for (const e of meta.indexes ?? []) {
    const step = e.step === undefined || e.step === 0 ? 1 : e.step;
    out[e.key] = `${e.prefix ?? ''}${(e.offset ?? 0) + index * step}${e.suffix ?? ''}`;
  }
  for (const e of meta.namespaces ?? []) {
    out[e.key] = ctx.data.metadata.namespace ?? '';
  }
  (meta.objectNames ?? []).forEach((e, i) => {
    out[e.key] = objectMeta(e.object, ctx, `${base}.objectNames[${i}].object`).name ?? '';
  });
  (meta.fromLabels ?? []).forEach((e, i) => {
    out[e.key] = objectMeta(e.object, ctx, `${base}.fromLabels[${i}].object`).labels?.[e.label] ?? '';
  });
  (meta.fromAnnotations ?? []).forEach((e, i) => {
    out[e.key] = annotationValue(e, ctx, `${base}.fromAnnotations[${i}]`);
  });
  for (const e of meta.strings ?? []) {
    out[e.key] = e.value;
  }
  // DR-13/E-26: dnsServersFromIPPool only causes a claim; nothing is rendered.
  out['providerid'] = ctx.providerID ?? defaultMetadataProviderID(ctx);
  return out;
}

/** Upstream's `providerid` value: `<metal3machine namespace>/<host name>/<metal3machine name>` (DR-12). */
export function defaultMetadataProviderID(ctx: Pick<RenderContext, 'metal3Machine' | 'host'>): string {
  const m3m = ctx.metal3Machine.metadata;
  return `${m3m.namespace ?? ''}/${ctx.host.metadata.name ?? ''}/${m3m.name ?? ''}`;
}

/**
 * The `metaData` Secret value for this machine, byte-identical to upstream.
 * Throws RenderError when the template cannot be rendered, or when it has no
 * metaData (callers render only when `spec.metaData` is set, D-9).
 */
export function renderMetaData(spec: Metal3DataTemplateSpec, ctx: RenderContext): string {
  return toYaml(metaDataMap(spec, ctx));
}
