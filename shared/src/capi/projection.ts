// Cluster API's own objects read at v1beta2, held in the v1beta1 shape the controllers were written
// against (research S-10, CO-1…CO-12). Pure. Only what a controller reads is carried over, so the cache
// holds less than the served object; a controller that starts reading another field of a Cluster,
// Machine or MachineSet adds it here (projection.test.ts lists every projected field).
//
// - Readiness comes from `status.initialization` (CO-4, CO-9, CO-10), never from the v1beta1
//   conditions kept under `status.deprecated`, which Cluster API v1.16 removes (S-10). The v1beta2
//   conditions stay where a v1beta1 reader finds them, `status.v1beta2.conditions`.
// - A v1beta2 reference names a group, not a version (CO-1, CO-8): the projected `apiVersion` is
//   `<group>/`, which `apiGroupOf` reads as the group, and no controller reads the version of a
//   Cluster API reference.
// - `apiVersion` of the object itself stays the version read: references built from a cached object
//   (a Metal3DataTemplate's owner) must name a version the apiserver serves.
import type { ObjectMeta, ObjectReference } from '@metal3-ts/generated';
import type * as v1beta1 from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type * as v1beta2 from '@metal3-ts/generated/cluster.x-k8s.io/v1beta2';

/** A v1beta2 reference `{apiGroup, kind, name}` as a v1beta1 ObjectReference in `namespace`; undefined when it names nothing (CO-8). */
export function referenceFromV1beta2(
  ref: { readonly apiGroup?: string; readonly kind?: string; readonly name?: string } | undefined,
  namespace: string | undefined,
): ObjectReference | undefined {
  if (!ref || (!ref.apiGroup && !ref.kind && !ref.name)) return undefined;
  return {
    apiVersion: `${ref.apiGroup ?? ''}/`,
    ...(ref.kind ? { kind: ref.kind } : {}),
    ...(ref.name ? { name: ref.name } : {}),
    ...(namespace ? { namespace } : {}),
  };
}

/** The object's identity and metadata, with the version it was read at. */
function identity<K extends string>(object: { apiVersion: string; metadata: ObjectMeta }, kind: K) {
  return { apiVersion: object.apiVersion, kind, metadata: object.metadata };
}

const nonEmpty = (value: string | undefined): string | undefined => (value ? value : undefined);

export function clusterFromV1beta2(cluster: v1beta2.Cluster): v1beta1.Cluster {
  const { spec, status } = cluster;
  const namespace = cluster.metadata.namespace;
  const infrastructureRef = referenceFromV1beta2(spec?.infrastructureRef, namespace);
  const controlPlaneRef = referenceFromV1beta2(spec?.controlPlaneRef, namespace);
  const conditions = status?.conditions;
  return {
    ...(identity(cluster, 'Cluster') as Pick<v1beta1.Cluster, 'apiVersion' | 'kind' | 'metadata'>),
    spec: {
      ...(spec?.paused === true ? { paused: true } : {}),
      ...(infrastructureRef ? { infrastructureRef } : {}),
      ...(controlPlaneRef ? { controlPlaneRef } : {}),
    },
    status: {
      ...(status?.initialization?.infrastructureProvisioned === true ? { infrastructureReady: true } : {}),
      ...(status?.initialization?.controlPlaneInitialized === true ? { controlPlaneReady: true } : {}),
      ...(conditions ? { v1beta2: { conditions } } : {}),
    },
  };
}

export function machineFromV1beta2(machine: v1beta2.Machine): v1beta1.Machine {
  const { spec, status } = machine;
  const namespace = machine.metadata.namespace;
  const configRef = referenceFromV1beta2(spec?.bootstrap?.configRef, namespace);
  const dataSecretName = spec?.bootstrap?.dataSecretName;
  const providerID = nonEmpty(spec?.providerID);
  const failureDomain = nonEmpty(spec?.failureDomain);
  const nodeName = status?.nodeRef?.name;
  const conditions = status?.conditions;
  return {
    ...(identity(machine, 'Machine') as Pick<v1beta1.Machine, 'apiVersion' | 'kind' | 'metadata'>),
    spec: {
      clusterName: spec?.clusterName ?? '',
      bootstrap: { ...(configRef ? { configRef } : {}), ...(dataSecretName !== undefined ? { dataSecretName } : {}) },
      infrastructureRef: referenceFromV1beta2(spec?.infrastructureRef, namespace) ?? {},
      ...(providerID ? { providerID } : {}),
      ...(failureDomain ? { failureDomain } : {}),
    },
    status: {
      ...(status?.initialization?.bootstrapDataSecretCreated === true ? { bootstrapReady: true } : {}),
      ...(status?.initialization?.infrastructureProvisioned === true ? { infrastructureReady: true } : {}),
      ...(nodeName ? { nodeRef: { apiVersion: 'v1', kind: 'Node', name: nodeName } } : {}),
      ...(conditions ? { v1beta2: { conditions } } : {}),
    },
  };
}

/** MachineSets are read for their identity alone (node reuse follows a Machine's owner, N-4). */
export function machineSetFromV1beta2(machineSet: v1beta2.MachineSet): v1beta1.MachineSet {
  return identity(machineSet, 'MachineSet') as v1beta1.MachineSet;
}
