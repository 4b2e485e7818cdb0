// Spec defaulting that upstream's Metal3Cluster webhook did at admission (research W-2) and its
// controller half-repeated in memory (C-5). Our CRD cannot express either (docs/crds.md: a present
// `port: 0` is not defaulted, and the two cloud flags default from each other), so the controller
// applies them when it reads the object and writes them back, as the webhook's patch would have.
import type { JsonPatchOperation } from '@metal3-ts/generated';
import type { Metal3ClusterSpec } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { DEFAULT_API_SERVER_PORT } from '../names.ts';
import { validateControlPlaneEndpoint } from './endpoint.ts';

/** The spec fields to write so the object carries its defaults; undefined when it already does. */
export interface SpecDefaults {
  controlPlaneEndpoint?: { host: string; port: number };
  cloudProviderEnabled?: boolean;
  noCloudProvider?: boolean;
}

/**
 * Whether an external cloud provider sets the Nodes' providerIDs: `cloudProviderEnabled`, else the
 * inverse of the deprecated `noCloudProvider`, else true. When both are set and agree (a conflict the
 * CRD rejects, so only objects stored before the rule existed), `cloudProviderEnabled` wins, as it
 * does in upstream's C-5.
 */
export function cloudProviderEnabled(spec: Readonly<Metal3ClusterSpec> | undefined): boolean {
  if (spec?.cloudProviderEnabled !== undefined) return spec.cloudProviderEnabled;
  if (spec?.noCloudProvider !== undefined) return !spec.noCloudProvider;
  return true;
}

/**
 * W-2 as a diff: `controlPlaneEndpoint.port` 0 becomes 6443; both cloud flags are written as the
 * effective setting and its inverse. A spec without an endpoint gets none invented.
 */
export function specDefaults(spec: Readonly<Metal3ClusterSpec> | undefined): SpecDefaults | undefined {
  const out: SpecDefaults = {};
  const endpoint = spec?.controlPlaneEndpoint;
  if (endpoint && (endpoint.port === 0 || endpoint.port === undefined)) {
    out.controlPlaneEndpoint = { host: endpoint.host ?? '', port: DEFAULT_API_SERVER_PORT };
  }
  const enabled = cloudProviderEnabled(spec);
  if (spec?.cloudProviderEnabled !== enabled) out.cloudProviderEnabled = enabled;
  if (spec?.noCloudProvider !== !enabled) out.noCloudProvider = !enabled;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The spec with the defaults applied (a new object; `spec` is not changed). */
export function withDefaults(spec: Readonly<Metal3ClusterSpec> | undefined): Metal3ClusterSpec {
  const copy = structuredClone(spec ?? {}) as Metal3ClusterSpec;
  return { ...copy, ...specDefaults(spec) };
}

/**
 * The defaults as a JSON Patch whose `test` ops pin each field to the value the defaults were
 * computed from (null for an absent field): a concurrent edit of one of these fields makes the
 * apiserver refuse the whole patch (we re-read and try again), while edits of anything else, such as
 * Cluster API adopting the object at the same moment, do not get in the way.
 */
export function specDefaultsPatch(spec: Readonly<Metal3ClusterSpec> | undefined): JsonPatchOperation[] | undefined {
  const defaults = specDefaults(spec);
  if (!defaults) return undefined;
  const ops: JsonPatchOperation[] = [];
  if (defaults.controlPlaneEndpoint) {
    ops.push(
      { op: 'test', path: '/spec/controlPlaneEndpoint/port', value: spec?.controlPlaneEndpoint?.port ?? null },
      { op: 'add', path: '/spec/controlPlaneEndpoint/port', value: defaults.controlPlaneEndpoint.port },
    );
  }
  for (const field of ['cloudProviderEnabled', 'noCloudProvider'] as const) {
    const value = defaults[field];
    if (value === undefined) continue;
    ops.push({ op: 'test', path: `/spec/${field}`, value: spec?.[field] ?? null }, { op: 'add', path: `/spec/${field}`, value });
  }
  return ops;
}

/**
 * The guarded patch the spec-defaults phase sends, or undefined when there is nothing to write. An
 * invalid endpoint stays as written: the status reports it and the user's fix comes first.
 */
export function specDefaultsToWrite(spec: Readonly<Metal3ClusterSpec> | undefined): JsonPatchOperation[] | undefined {
  const ops = specDefaultsPatch(spec);
  if (!ops || !spec) return undefined;
  return validateControlPlaneEndpoint(withDefaults(spec).controlPlaneEndpoint).length > 0 ? undefined : ops;
}
