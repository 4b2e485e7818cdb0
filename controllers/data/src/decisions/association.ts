// Which objects a Metal3Data is rendered for (research D-9 steps 1–4, 8, 9; DR-1): its template, its
// claim, the claim's Metal3Machine, that machine's owner Machine and its BareMetalHost. Pure: the
// objects come from lookups (the informers' stores), so every rule is a table test.
import type { ObjectReference } from '@metal3-ts/generated';
import type { Metal3Data, Metal3DataClaim, Metal3DataTemplate } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { ObjectKey } from '@metal3-ts/shared/cache/types';
import { hostAnnotationKey, hostAnnotationProblem } from '@metal3-ts/baremetal/host-annotation';
import { getOwnerByKind } from '@metal3-ts/shared/meta/owner-references';
import { foreignReferences, REFERENCE_FIELDS } from '@metal3-ts/shared/meta/references';
import { CLUSTER_API_GROUP, CLUSTER_NAME_LABEL, HOST_ANNOTATION, INFRASTRUCTURE_GROUP } from '../names.ts';
import { type Finding, found, invalid, wait } from '../findings.ts';
import type { RelatedHost, RelatedMachine, RelatedMetal3Machine } from '../render/index.ts';

export type Lookup<T> = (key: ObjectKey) => Readonly<T> | undefined;

export interface AssociationLookups {
  readonly template: Lookup<Metal3DataTemplate>;
  readonly claim: Lookup<Metal3DataClaim>;
  readonly metal3Machine: Lookup<RelatedMetal3Machine>;
}

export interface MachineLookups {
  readonly machine: Lookup<RelatedMachine>;
  readonly host: Lookup<RelatedHost>;
}

export interface Association {
  readonly template: Readonly<Metal3DataTemplate>;
  readonly claim: Readonly<Metal3DataClaim>;
  readonly metal3Machine: Readonly<RelatedMetal3Machine>;
}

export interface MachineAndHost {
  readonly machine: Readonly<RelatedMachine>;
  readonly host: Readonly<RelatedHost>;
}

const ns = (data: Readonly<Metal3Data>): string => data.metadata.namespace ?? '';

/** Issue 21: the words after the field path in status.errorMessage and the Warning event. */
export const CROSS_NAMESPACE_MESSAGE = 'must be empty or the Metal3Data namespace; cross-namespace references are not allowed';

/**
 * D-9 step 2: the template, always in the Metal3Data's own namespace (issue 21: a template of another
 * tenant is never read). Undefined without a name, or when the reference names another namespace
 * (findAssociation reports that as invalid; the watches have nothing to map).
 */
export function templateKey(data: Readonly<Metal3Data>): ObjectKey | undefined {
  const ref: Partial<ObjectReference> | undefined = data.spec?.template;
  if (!ref?.name || foreignReferences(data, ['spec.template']).length > 0) return undefined;
  return { namespace: ns(data), name: ref.name };
}

/**
 * D-9 steps 3–4: template, claim and Metal3Machine, each checked against the others. The caller has
 * already handled an empty template name (step 1: nothing to render).
 */
export function findAssociation(data: Readonly<Metal3Data>, lookups: AssociationLookups): Finding<Association> {
  // Issue 21: every reference is resolved in the Metal3Data's own namespace, whatever admission let
  // through; one that says otherwise is bad input, not something to follow or to quietly rewrite.
  const [foreign] = foreignReferences(data, REFERENCE_FIELDS.Metal3Data);
  if (foreign) return invalid('AssociationInvalid', CROSS_NAMESPACE_MESSAGE, foreign.field);
  const key = templateKey(data);
  if (!key) return invalid('AssociationInvalid', 'Metal3DataTemplate name not set', 'spec.template.name');
  const template = lookups.template(key);
  if (!template) return wait('Metal3DataTemplate is not found, requeuing');
  if ((data.metadata.labels?.[CLUSTER_NAME_LABEL] ?? '') !== (template.spec?.clusterName ?? '')) {
    return invalid('AssociationInvalid', 'Metal3DataTemplate associated with another cluster');
  }
  const claimName = data.spec?.claim?.name;
  if (!claimName) return invalid('AssociationInvalid', 'Metal3DataClaim name not set', 'spec.claim.name');
  const claim = lookups.claim({ namespace: ns(data), name: claimName });
  if (!claim) return wait('Metal3DataClaim is not found, requeuing');
  const owner = getOwnerByKind(claim, INFRASTRUCTURE_GROUP, 'Metal3Machine');
  if (!owner) return invalid('AssociationInvalid', 'Metal3Machine not found in owner references');
  const metal3Machine = lookups.metal3Machine({ namespace: ns(data), name: owner.name });
  if (!metal3Machine) return wait('Metal3Machine is not found, requeuing');
  if (!pointsBack(metal3Machine, template)) {
    return invalid('AssociationInvalid', 'Metal3Machine associated with Metal3DataTemplate is not found');
  }
  return found({ template, claim, metal3Machine });
}

/** The Metal3Machine's `spec.dataTemplate` names this template (namespace empty or the template's). */
function pointsBack(metal3Machine: Readonly<RelatedMetal3Machine>, template: Readonly<Metal3DataTemplate>): boolean {
  const ref = metal3Machine.spec?.dataTemplate;
  if (!ref || ref.name !== template.metadata.name) return false;
  return !ref.namespace || ref.namespace === template.metadata.namespace;
}

/**
 * M-40: the BareMetalHost named by the Metal3Machine's `metal3.io/BareMetalHost` annotation, parsed
 * as the machine controller parses it (baremetal/src/host-annotation.ts). Changed from upstream (E-29,
 * which ignores the namespace part): always in the Metal3Machine's namespace, and undefined when the
 * annotation names another namespace (findMachineAndHost says so), is malformed or absent.
 */
export function hostKey(metal3Machine: Readonly<RelatedMetal3Machine>): ObjectKey | undefined {
  return hostAnnotationKey(metal3Machine.metadata.annotations?.[HOST_ANNOTATION], metal3Machine.metadata.namespace ?? '');
}

/**
 * D-9 steps 8–9: the Metal3Machine's owner Machine (M-9) and its BareMetalHost (M-40). A host
 * annotation naming another namespace, or malformed, is invalid (terminal, as for the machine).
 */
export function findMachineAndHost(metal3Machine: Readonly<RelatedMetal3Machine>, lookups: MachineLookups): Finding<MachineAndHost> {
  const owner = getOwnerByKind(metal3Machine, CLUSTER_API_GROUP, 'Machine');
  const machine = owner ? lookups.machine({ namespace: metal3Machine.metadata.namespace ?? '', name: owner.name }) : undefined;
  if (!machine) return wait('Waiting for Machine Controller to set OwnerRef on Metal3Machine');
  // Issue 21: a host of another namespace is never read; the Metal3Data says why instead of waiting silently.
  const problem = hostAnnotationProblem(metal3Machine.metadata.annotations?.[HOST_ANNOTATION], metal3Machine.metadata.namespace ?? '');
  if (problem) return invalid('AssociationInvalid', `Metal3Machine ${metal3Machine.metadata.name ?? ''}: ${problem}`);
  const key = hostKey(metal3Machine);
  const host = key ? lookups.host(key) : undefined;
  if (!host) return wait('Waiting for BareMetalHost to become available');
  return found({ machine, host });
}
