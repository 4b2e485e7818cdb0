// Cloning a template into the object it describes, as Cluster API's external.GenerateTemplate does
// for MachineSets and KubeadmControlPlanes: Metal3MachineTemplate `spec.template` → a Metal3Machine,
// KubeadmConfigTemplate `spec.template` → a KubeadmConfig. Pure: the caller reads the template and
// creates the result.
//
// What the clone carries:
// - apiVersion of the template reference, kind of the template without its `Template` suffix;
// - the template's `spec.template.spec` as spec;
// - labels: the template's `spec.template.metadata.labels`, then the caller's labels, then
//   `cluster.x-k8s.io/cluster-name`;
// - annotations: the template's `spec.template.metadata.annotations`, then the caller's, then
//   `cluster.x-k8s.io/cloned-from-name` (template name) and `cluster.x-k8s.io/cloned-from-groupkind`
//   (`<Kind>.<group>` of the template, e.g. `Metal3MachineTemplate.infrastructure.cluster.x-k8s.io`);
// - one owner reference, when given (CAPI's "on create" owner, never a controller: the Machine
//   controller later makes the Machine the controller and drops it).
import type { JsonObject, KubeObject, ObjectReference, OwnerReference } from '@metal3-ts/generated';
import { CLONED_FROM_GROUPKIND_ANNOTATION, CLONED_FROM_NAME_ANNOTATION, CLUSTER_NAME_LABEL } from './machineset-constants.ts';

/** The template has no `spec.template` (or it is not an object): nothing to clone. */
export class InvalidTemplateError extends Error {
  override name = 'InvalidTemplateError';
}

/** A template object as read from the apiserver: any kind that follows the `spec.template` contract. */
export interface TemplateObject extends KubeObject {
  spec?: { template?: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: JsonObject } };
}

/** A clone: any kind with a spec. */
export interface ClonedObject extends KubeObject {
  spec: JsonObject;
}

export interface CloneInput {
  readonly template: Readonly<TemplateObject>;
  /** The reference the template was read through (its apiVersion becomes the clone's). */
  readonly templateRef: Readonly<ObjectReference>;
  readonly name: string;
  readonly namespace: string;
  readonly clusterName: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly owner?: Readonly<OwnerReference>;
}

/** The API group of an apiVersion (`''` for the core group). */
export function groupOfApiVersion(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** `Kind.group` as apimachinery's GroupKind.String() prints it (just `Kind` for the core group). */
export function groupKindString(ref: { readonly apiVersion?: string | undefined; readonly kind?: string | undefined }): string {
  const group = groupOfApiVersion(ref.apiVersion ?? '');
  return group ? `${ref.kind ?? ''}.${group}` : (ref.kind ?? '');
}

const TEMPLATE_SUFFIX = 'Template';

export function cloneFromTemplate(input: CloneInput): ClonedObject {
  const { template, templateRef } = input;
  const resource = template.spec?.template;
  if (!resource || typeof resource !== 'object') {
    throw new InvalidTemplateError(`${template.kind} ${template.metadata.namespace ?? ''}/${template.metadata.name ?? ''} has no spec.template`);
  }
  const kind = template.kind.endsWith(TEMPLATE_SUFFIX) ? template.kind.slice(0, -TEMPLATE_SUFFIX.length) : template.kind;
  const labels: Record<string, string> = { ...resource.metadata?.labels, ...input.labels, [CLUSTER_NAME_LABEL]: input.clusterName };
  const annotations: Record<string, string> = {
    ...resource.metadata?.annotations,
    ...input.annotations,
    [CLONED_FROM_NAME_ANNOTATION]: templateRef.name ?? template.metadata.name ?? '',
    [CLONED_FROM_GROUPKIND_ANNOTATION]: groupKindString({ apiVersion: templateRef.apiVersion ?? template.apiVersion, kind: templateRef.kind ?? template.kind }),
  };
  return {
    apiVersion: templateRef.apiVersion ?? template.apiVersion,
    kind,
    metadata: {
      name: input.name,
      namespace: input.namespace,
      labels,
      annotations,
      ...(input.owner ? { ownerReferences: [{ ...input.owner }] } : {}),
    },
    spec: structuredClone(resource.spec ?? {}),
  };
}

/** The reference a Machine keeps to a created clone. */
export function referenceTo(obj: Readonly<KubeObject>): ObjectReference {
  return { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name ?? '', namespace: obj.metadata.namespace ?? '' };
}
