// The core/v1 kinds metal3-ts controllers read and write, with the fields they use and the rest of
// the shape kept open where the API is large (Node status). Hand-maintained in codegen/templates
// because core types do not come from CRDs; `metal3-codegen live` can regenerate from /openapi/v3.
import type { ListMeta, ObjectMeta, ObjectReference, Time } from '../runtime/meta.ts';
import { defineResource, factoryFor, guardFor, type ResourceDescriptor, type ResourceInit } from '../runtime/resource.ts';

export interface Secret {
  apiVersion: 'v1';
  kind: 'Secret';
  metadata: ObjectMeta;
  /** Base64-encoded values. */
  data?: Record<string, string>;
  /** Plain values, merged into data on write; never returned by the server. */
  stringData?: Record<string, string>;
  type?: string;
  immutable?: boolean;
}

export interface SecretList {
  apiVersion: 'v1';
  kind: 'SecretList';
  metadata: ListMeta;
  items: Secret[];
}

export interface ConfigMap {
  apiVersion: 'v1';
  kind: 'ConfigMap';
  metadata: ObjectMeta;
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
  immutable?: boolean;
}

export interface Namespace {
  apiVersion: 'v1';
  kind: 'Namespace';
  metadata: ObjectMeta;
  spec?: { finalizers?: string[] };
  status?: { phase?: 'Active' | 'Terminating' };
}

export interface Taint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
  timeAdded?: Time;
}

export interface NodeAddress {
  type: 'Hostname' | 'InternalIP' | 'ExternalIP' | 'InternalDNS' | 'ExternalDNS';
  address: string;
}

export interface NodeCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastHeartbeatTime?: Time;
  lastTransitionTime?: Time;
  reason?: string;
  message?: string;
}

export interface NodeSystemInfo {
  machineID: string;
  systemUUID: string;
  bootID: string;
  kernelVersion: string;
  osImage: string;
  containerRuntimeVersion: string;
  kubeletVersion: string;
  kubeProxyVersion?: string;
  operatingSystem: string;
  architecture: string;
}

export interface Node {
  apiVersion: 'v1';
  kind: 'Node';
  metadata: ObjectMeta;
  spec?: {
    providerID?: string;
    podCIDR?: string;
    podCIDRs?: string[];
    unschedulable?: boolean;
    taints?: Taint[];
  };
  status?: {
    addresses?: NodeAddress[];
    conditions?: NodeCondition[];
    nodeInfo?: NodeSystemInfo;
    capacity?: Record<string, string>;
    allocatable?: Record<string, string>;
  };
}

export interface Event {
  apiVersion: 'v1';
  kind: 'Event';
  metadata: ObjectMeta;
  involvedObject: ObjectReference;
  reason?: string;
  message?: string;
  type?: 'Normal' | 'Warning';
  count?: number;
  firstTimestamp?: Time;
  lastTimestamp?: Time;
  eventTime?: string | null;
  source?: { component?: string; host?: string };
  reportingComponent?: string;
  reportingInstance?: string;
  action?: string;
}

const core = { group: '', version: 'v1', scaleSubresource: false, categories: [] } as const;

export const SecretResource: ResourceDescriptor<Secret> = defineResource<Secret>({
  ...core,
  kind: 'Secret',
  listKind: 'SecretList',
  plural: 'secrets',
  singular: 'secret',
  namespaced: true,
  statusSubresource: false,
  shortNames: [],
});
export const ConfigMapResource: ResourceDescriptor<ConfigMap> = defineResource<ConfigMap>({
  ...core,
  kind: 'ConfigMap',
  listKind: 'ConfigMapList',
  plural: 'configmaps',
  singular: 'configmap',
  namespaced: true,
  statusSubresource: false,
  shortNames: ['cm'],
});
export const NamespaceResource: ResourceDescriptor<Namespace> = defineResource<Namespace>({
  ...core,
  kind: 'Namespace',
  listKind: 'NamespaceList',
  plural: 'namespaces',
  singular: 'namespace',
  namespaced: false,
  statusSubresource: true,
  shortNames: ['ns'],
});
export const NodeResource: ResourceDescriptor<Node> = defineResource<Node>({
  ...core,
  kind: 'Node',
  listKind: 'NodeList',
  plural: 'nodes',
  singular: 'node',
  namespaced: false,
  statusSubresource: true,
  shortNames: ['no'],
});
export const EventResource: ResourceDescriptor<Event> = defineResource<Event>({
  ...core,
  kind: 'Event',
  listKind: 'EventList',
  plural: 'events',
  singular: 'event',
  namespaced: true,
  statusSubresource: false,
  shortNames: ['ev'],
});

export const newSecret: (init: ResourceInit<Secret>) => Secret = factoryFor(SecretResource);
export const isSecret: (obj: unknown) => obj is Secret = guardFor(SecretResource);
export const newConfigMap: (init: ResourceInit<ConfigMap>) => ConfigMap = factoryFor(ConfigMapResource);
export const isConfigMap: (obj: unknown) => obj is ConfigMap = guardFor(ConfigMapResource);
export const newNamespace: (init: ResourceInit<Namespace>) => Namespace = factoryFor(NamespaceResource);
export const isNamespace: (obj: unknown) => obj is Namespace = guardFor(NamespaceResource);
export const newNode: (init: ResourceInit<Node>) => Node = factoryFor(NodeResource);
export const isNode: (obj: unknown) => obj is Node = guardFor(NodeResource);
export const newEvent: (init: ResourceInit<Event>) => Event = factoryFor(EventResource);
export const isEvent: (obj: unknown) => obj is Event = guardFor(EventResource);

/** Every kind of core/v1 in this package. */
export const resources: readonly ResourceDescriptor[] = [ConfigMapResource, EventResource, NamespaceResource, NodeResource, SecretResource];
