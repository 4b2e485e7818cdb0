// Fixtures for this package's table tests: a consistent set of objects (one Metal3Data of template
// `tmpl`, claimed by Metal3Machine `m3m` owned by Machine `machine`, on host `host`, in namespace
// `ns` of Cluster `c1`), each adjustable, and a Map-backed lookup.
import type { KubeObject } from '@metal3-ts/generated';
import { type Cluster, type Machine, newCluster, newMachine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import {
  type Metal3Data,
  type Metal3DataClaim,
  type Metal3DataTemplate,
  type Metal3Machine,
  newMetal3Data,
  newMetal3DataClaim,
  newMetal3DataTemplate,
  newMetal3Machine,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { type BareMetalHost, newBareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import type { ObjectKey } from '@metal3-ts/shared/cache/types';
import { CLUSTER_NAME_LABEL, HOST_ANNOTATION } from './names.ts';

export const NS = 'ns';
export const DATA_UID = 'data-uid';
const infra = 'infrastructure.cluster.x-k8s.io/v1beta1';

export function data(patch: (d: Metal3Data) => void = () => {}): Metal3Data {
  const d = newMetal3Data({
    metadata: { name: 'tmpl-0', namespace: NS, uid: DATA_UID, labels: { [CLUSTER_NAME_LABEL]: 'c1' } },
    spec: { index: 0, template: { name: 'tmpl', namespace: NS }, claim: { name: 'm3m', namespace: NS } },
  });
  patch(d);
  return d;
}

export function template(patch: (t: Metal3DataTemplate) => void = () => {}): Metal3DataTemplate {
  const t = newMetal3DataTemplate({
    metadata: { name: 'tmpl', namespace: NS, uid: 'tmpl-uid' },
    spec: { clusterName: 'c1', metaData: { strings: [{ key: 'a', value: 'b' }] }, networkData: { links: {} } },
  });
  patch(t);
  return t;
}

export function claim(patch: (c: Metal3DataClaim) => void = () => {}): Metal3DataClaim {
  const c = newMetal3DataClaim({
    metadata: {
      name: 'm3m',
      namespace: NS,
      uid: 'claim-uid',
      ownerReferences: [{ apiVersion: infra, kind: 'Metal3Machine', name: 'm3m', uid: 'm3m-uid', controller: true }],
    },
    spec: { template: { name: 'tmpl' } },
  });
  patch(c);
  return c;
}

export function metal3Machine(patch: (m: Metal3Machine) => void = () => {}): Metal3Machine {
  const m = newMetal3Machine({
    metadata: {
      name: 'm3m',
      namespace: NS,
      uid: 'm3m-uid',
      annotations: { [HOST_ANNOTATION]: `${NS}/host` },
      ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Machine', name: 'machine', uid: 'machine-uid', controller: true }],
    },
    spec: { image: { url: 'http://x/img', checksum: 'http://x/img.sum' }, dataTemplate: { name: 'tmpl' } },
  });
  patch(m);
  return m;
}

export const machine = (): Machine =>
  newMachine({
    metadata: { name: 'machine', namespace: NS, uid: 'machine-uid' },
    spec: { clusterName: 'c1', bootstrap: {}, infrastructureRef: { apiVersion: infra, kind: 'Metal3Machine', name: 'm3m' } },
  });
export const host = (): BareMetalHost => newBareMetalHost({ metadata: { name: 'host', namespace: NS, uid: 'host-uid' }, spec: { online: true } });
export const cluster = (paused = false): Cluster => newCluster({ metadata: { name: 'c1', namespace: NS, uid: 'c1-uid' }, spec: { paused } });

/** A lookup over `objects`, keyed `<namespace>/<name>`. */
export function lookup<T extends KubeObject>(...objects: T[]): (key: ObjectKey) => Readonly<T> | undefined {
  const byKey = new Map(objects.map((o) => [`${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`, o]));
  return (key) => byKey.get(`${key.namespace ?? ''}/${key.name}`);
}
