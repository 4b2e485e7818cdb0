// Shared Kubernetes object-model types. Every generated kind refers to these instead of declaring its
// own copies, so values flow between kinds without casts. Timestamps are RFC 3339 strings, as on the
// wire: nothing here pretends they are Dates.

/** Any JSON value: what a typeless `x-kubernetes-preserve-unknown-fields` node may hold. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object with arbitrary content (preserve-unknown-fields objects, embedded resources). */
export type JsonObject = { [key: string]: JsonValue };

/** `x-kubernetes-int-or-string`: a number, or a string such as a percentage (`"25%"`). */
export type IntOrString = number | string;

/** An RFC 3339 timestamp as the apiserver sends it, e.g. `2026-11-22T10:36:50Z`. */
export type Time = string;

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ManagedFieldsEntry {
  apiVersion?: string;
  fieldsType?: string;
  fieldsV1?: JsonObject;
  manager?: string;
  operation?: string;
  subresource?: string;
  time?: Time;
}

/** metav1.ObjectMeta: identity, labels, annotations, ownership and lifecycle of an object. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: Time;
  deletionTimestamp?: Time;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
}

export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
  selfLink?: string;
}

/** The fields every Kubernetes object has. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
}

export interface KubeList<T extends KubeObject = KubeObject> {
  apiVersion: string;
  kind: string;
  metadata: ListMeta;
  items: T[];
}

/** Cluster API's embedded ObjectMeta of templates: only labels and annotations. */
export interface ObjectMetaTemplate {
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** corev1.ObjectReference. */
export interface ObjectReference {
  apiVersion?: string;
  fieldPath?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  resourceVersion?: string;
  uid?: string;
}

/** corev1.TypedLocalObjectReference. */
export interface TypedLocalObjectReference {
  apiGroup?: string;
  kind: string;
  name: string;
}

export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

/** metav1.LabelSelector. */
export interface LabelSelector {
  matchExpressions?: LabelSelectorRequirement[];
  matchLabels?: Record<string, string>;
}

/** Cluster API v1beta1 condition (`status.conditions`), with a severity for False conditions. */
export interface Condition {
  type: string;
  status: string;
  severity?: string;
  lastTransitionTime: Time;
  reason?: string;
  message?: string;
}

/** metav1.Condition (`status.v1beta2.conditions` and most newer APIs). */
export interface MetaV1Condition {
  type: string;
  status: string;
  observedGeneration?: number;
  lastTransitionTime: Time;
  reason: string;
  message: string;
}

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

/** metav1.Status: what the apiserver returns for errors and some deletes. */
export interface Status {
  apiVersion?: 'v1';
  kind?: 'Status';
  metadata?: ListMeta;
  status?: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    uid?: string;
    causes?: StatusCause[];
    retryAfterSeconds?: number;
  };
  code?: number;
}
