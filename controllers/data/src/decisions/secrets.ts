// The rendered Secrets of a Metal3Data (research D-9 steps 5–7, D-10…D-12): which ones the template
// asks for, their names, and the objects written. Pure; the reconcile reads and creates them.
import { Buffer } from 'node:buffer';
import type { Secret } from '@metal3-ts/generated/core/v1';
import { newSecret } from '@metal3-ts/generated/core/v1';
import type { Metal3Data, Metal3DataTemplate, Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import {
  CLUSTER_NAME_LABEL,
  META_DATA_KEY,
  metaDataSecretName,
  NETWORK_DATA_KEY,
  networkDataSecretName,
  RENDERED_SECRET_LABEL,
  RENDERED_SECRET_TYPE,
} from '../names.ts';

export type SecretKind = 'metaData' | 'networkData';

/** One Secret the template asks for. */
export interface SecretTarget {
  readonly kind: SecretKind;
  /** The Secret's name, in the Metal3Data's namespace. */
  readonly name: string;
  /** Its data key: `metaData` or `networkData` (D-12). */
  readonly key: string;
}

/**
 * D-9 steps 5–6, D-10: for each part the template renders, the Secret's name: the one already
 * recorded in `spec.metaData` / `spec.networkData`, else `<metal3machine>-metadata` /
 * `<metal3machine>-networkdata`. The derived names are recorded in the spec by deriveStatus
 * (withSecretReferences), so the Metal3Machine controller finds them (M-36).
 */
export function secretTargets(
  data: Readonly<Metal3Data>,
  template: Readonly<Metal3DataTemplate>,
  metal3Machine: Readonly<Metal3Machine>,
): SecretTarget[] {
  const machine = metal3Machine.metadata.name ?? '';
  const targets: SecretTarget[] = [];
  if (template.spec?.metaData) {
    targets.push({ kind: 'metaData', name: data.spec?.metaData?.name || metaDataSecretName(machine), key: META_DATA_KEY });
  }
  if (template.spec?.networkData) {
    targets.push({ kind: 'networkData', name: data.spec?.networkData?.name || networkDataSecretName(machine), key: NETWORK_DATA_KEY });
  }
  return targets;
}

/** D-10: `data` with a reference to each target's Secret where its spec names none yet (a copy). */
export function withSecretReferences(data: Readonly<Metal3Data>, targets: readonly SecretTarget[]): Metal3Data {
  const copy = structuredClone(data) as Metal3Data;
  const spec = copy.spec;
  if (!spec) return copy;
  const namespace = data.metadata.namespace ?? '';
  for (const target of targets) {
    if (!spec[target.kind]?.name) spec[target.kind] = { name: target.name, namespace };
  }
  return copy;
}

/**
 * E-16 (fixed): the cluster-name label of the rendered Secrets. Upstream copies the template's own
 * label, which is often absent (the label is then `""`); the template's `spec.clusterName` (required,
 * and checked equal to the Metal3Data's label) names the same Cluster and is always there.
 */
export function secretClusterName(template: Readonly<Metal3DataTemplate>): string {
  return template.metadata.labels?.[CLUSTER_NAME_LABEL] || template.spec?.clusterName || '';
}

/**
 * D-11, D-12: the Secret holding `content` (UTF-8 YAML) under the target's key, controlled by the
 * Metal3Data. Changed: it also carries RENDERED_SECRET_LABEL, which the rendered-Secret watch selects.
 */
export function renderedSecret(target: SecretTarget, content: string, data: Readonly<Metal3Data>, clusterName: string): Secret {
  return newSecret({
    metadata: {
      name: target.name,
      namespace: data.metadata.namespace ?? '',
      labels: { [CLUSTER_NAME_LABEL]: clusterName, [RENDERED_SECRET_LABEL]: 'true' },
      ownerReferences: [
        { apiVersion: data.apiVersion, kind: data.kind, name: data.metadata.name ?? '', uid: data.metadata.uid ?? '', controller: true },
      ],
    },
    type: RENDERED_SECRET_TYPE,
    data: { [target.key]: Buffer.from(content, 'utf8').toString('base64') },
  });
}
