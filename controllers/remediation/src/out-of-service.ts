// The out-of-service-taint mode of CAPM3 (R-14, RS-16): instead of deleting the Node of a powered-off
// host, taint it `node.kubernetes.io/out-of-service=nodeshutdown:NoExecute` so Kubernetes force-detaches
// its volumes and deletes its Pods, wait until it is drained, and lift the taint once the host is back.
// Upstream turns it on when the management apiserver is ≥ 1.28; here `--out-of-service-taint`
// chooses: `false` (default, the classic mode), `true`, or `auto` (upstream's rule, decided once at
// start-up). The decisions are pure; `drained` and `versionOf` are the reads.
import type { Client, KubeObject } from '@metal3-ts/generated';
import { defineResource, type ResourceDescriptor } from '@metal3-ts/generated/runtime/resource';
import type { Node, Taint } from '@metal3-ts/generated/core/v1';

export const OUT_OF_SERVICE_TAINT = { key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' } as const;

export type OutOfServiceSetting = 'auto' | 'true' | 'false';

/** Whether the Node carries the taint (timeAdded does not matter). */
export function hasOutOfServiceTaint(node: Readonly<Node> | undefined): boolean {
  return (node?.spec?.taints ?? []).some((t) =>
    t.key === OUT_OF_SERVICE_TAINT.key && t.value === OUT_OF_SERVICE_TAINT.value && t.effect === OUT_OF_SERVICE_TAINT.effect
  );
}

/** The Node's taints with ours added (timeAdded now) or removed. */
export function taintsWith(node: Readonly<Node>, now: string): Taint[] {
  return [...(node.spec?.taints ?? []), { ...OUT_OF_SERVICE_TAINT, timeAdded: now }];
}
export function taintsWithout(node: Readonly<Node>): Taint[] {
  return (node.spec?.taints ?? []).filter((t) =>
    !(t.key === OUT_OF_SERVICE_TAINT.key && t.value === OUT_OF_SERVICE_TAINT.value && t.effect === OUT_OF_SERVICE_TAINT.effect)
  );
}

/** Upstream's rule: major > 1, or 1 and minor ≥ 28, both plain integers (`28+` fails: off, E-23). */
export function supportsOutOfService(version: { readonly major?: string; readonly minor?: string }): boolean {
  if (!/^\d+$/.test(version.major ?? '') || !/^\d+$/.test(version.minor ?? '')) return false;
  const major = Number(version.major);
  return major > 1 || (major === 1 && Number(version.minor) >= 28);
}

/** The mode for a setting; `auto` asks the management apiserver's `/version` once. */
export async function outOfServiceMode(setting: OutOfServiceSetting, management: Client): Promise<boolean> {
  if (setting !== 'auto') return setting === 'true';
  try {
    const text = await management.transport.requestText({ method: 'GET', path: '/version', verb: 'get', resource: 'version' });
    return supportsOutOfService(JSON.parse(text) as { major?: string; minor?: string });
  } catch {
    return false;
  }
}

interface Pod extends KubeObject {
  spec?: { nodeName?: string };
}
interface VolumeAttachment extends KubeObject {
  spec?: { nodeName?: string };
}
const PodResource: ResourceDescriptor<Pod> = defineResource<Pod>({
  group: '',
  version: 'v1',
  kind: 'Pod',
  listKind: 'PodList',
  plural: 'pods',
  singular: 'pod',
  namespaced: true,
  statusSubresource: true,
  scaleSubresource: false,
  categories: [],
  shortNames: [],
});
const VolumeAttachmentResource: ResourceDescriptor<VolumeAttachment> = defineResource<VolumeAttachment>({
  group: 'storage.k8s.io',
  version: 'v1',
  kind: 'VolumeAttachment',
  listKind: 'VolumeAttachmentList',
  plural: 'volumeattachments',
  singular: 'volumeattachment',
  namespaced: false,
  statusSubresource: true,
  scaleSubresource: false,
  categories: [],
  shortNames: [],
});

/**
 * Drained (RS-16): no Pod on the Node in the workload cluster is terminating, and no VolumeAttachment
 * (listed in the management cluster, as v1.13 does, E-24) names the Node. A failed list throws: the
 * harness retries it and reports why (a refused list read as "not drained" would wait without a word).
 */
export async function drained(workload: Client, management: Client, node: string): Promise<boolean> {
  const pods = await workload.api(PodResource).list({ fieldSelector: `spec.nodeName=${node}` });
  if (pods.items.some((p) => p.metadata.deletionTimestamp)) return false;
  const attachments = await management.api(VolumeAttachmentResource).list();
  return !attachments.items.some((a) => a.spec?.nodeName === node);
}
