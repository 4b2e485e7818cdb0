// Fixtures for this package's unit tests: templates, claims (as the Metal3Machine controller makes
// them, DC-1) and Metal3Data (as DT-13 makes them).
import { type Cluster, newCluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import {
  type Metal3Data,
  type Metal3DataClaim,
  type Metal3DataTemplate,
  newMetal3DataClaim,
  newMetal3DataTemplate,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { newMetal3DataFor } from './metal3data.ts';
import { METAL3_MACHINE_FINALIZER } from './names.ts';

export const NS = 'ns';

export function template(
  name: string,
  options: { templateReference?: string; clusterName?: string; status?: Metal3DataTemplate['status']; annotations?: Record<string, string> } = {},
): Metal3DataTemplate {
  return newMetal3DataTemplate({
    metadata: { name, namespace: NS, uid: `uid-${name}`, ...(options.annotations ? { annotations: options.annotations } : {}) },
    spec: { clusterName: options.clusterName ?? 'cluster', ...(options.templateReference ? { templateReference: options.templateReference } : {}) },
    ...(options.status ? { status: options.status } : {}),
  });
}

export interface ClaimOptions {
  readonly template?: string;
  readonly templateNamespace?: string;
  readonly uid?: string;
  readonly machine?: string | null;
  readonly labels?: Record<string, string>;
  readonly renderedData?: string;
  readonly errorMessage?: string;
  readonly finalizers?: string[];
  readonly deleting?: boolean;
  readonly annotations?: Record<string, string>;
}

export function claim(name: string, options: ClaimOptions = {}): Metal3DataClaim {
  const machine = options.machine === undefined ? name : options.machine;
  return newMetal3DataClaim({
    metadata: {
      name,
      namespace: NS,
      uid: options.uid ?? `uid-${name}`,
      resourceVersion: '1',
      finalizers: options.finalizers ?? [METAL3_MACHINE_FINALIZER],
      ...(options.labels ? { labels: options.labels } : {}),
      ...(options.annotations ? { annotations: options.annotations } : {}),
      ...(options.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
      ...(machine !== null
        ? {
          ownerReferences: [{
            apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
            kind: 'Metal3Machine',
            name: machine,
            uid: `uid-m3m-${machine}`,
            controller: true,
          }],
        }
        : {}),
    },
    spec: { template: { name: options.template ?? 'tmpl', ...(options.templateNamespace ? { namespace: options.templateNamespace } : {}) } },
    ...(options.renderedData || options.errorMessage
      ? {
        status: {
          ...(options.renderedData ? { renderedData: { name: options.renderedData, namespace: NS } } : {}),
          ...(options.errorMessage ? { errorMessage: options.errorMessage } : {}),
        },
      }
      : {}),
  });
}

/** The Metal3Data DT-13 makes for `forClaim` at `index` from `from`. */
export function data(from: Metal3DataTemplate, forClaim: Metal3DataClaim, index: number, extra: { deleting?: boolean } = {}): Metal3Data {
  const owner = forClaim.metadata.ownerReferences?.[0] ?? { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: 'm', uid: 'u' };
  const d = newMetal3DataFor({ template: from, claim: forClaim, machine: owner, index });
  d.metadata.uid = `uid-${d.metadata.name ?? ''}`;
  if (extra.deleting) d.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
  return d;
}

export function cluster(name = 'cluster', paused = false): Cluster {
  return newCluster({ metadata: { name, namespace: NS, uid: `uid-${name}` }, spec: paused ? { paused: true } : {} });
}
