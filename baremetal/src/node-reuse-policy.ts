// The template's node-reuse policy, for the Metal3Machine controller (N-6, N-7, X-10, B2-15). The
// template controller itself does nothing with `spec.nodeReuse`: the flag is read when a machine
// releases its host and decides whether the host is labelled `infrastructure.cluster.x-k8s.io/node-reuse`
// for the next machine of the same control plane or MachineDeployment. Which template: the one that
// control plane or MachineDeployment points to now (seed 001: "the new M3MTemplate that KCP is
// pointing to"; CAPM3 v1.13, B2-15), else the one the machine was cloned from (CAPM3 v1.12.7, N-7).
// CAPM3 keeps no status or annotation for it; neither do we.
import type { KubeObject } from '@metal3-ts/generated';
import type { Metal3Machine, Metal3MachineTemplate } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { CLONED_FROM_NAME_ANNOTATION } from '@metal3-ts/shared/meta/cloned-from';

/** A Metal3MachineTemplate's place: a machine's template lives in the machine's namespace. */
export interface TemplateKey {
  readonly namespace: string;
  readonly name: string;
}

/** N-1: `spec.nodeReuse`, false when unset (the CRD default) or when there is no template. */
export function nodeReuseFor(template: Readonly<Metal3MachineTemplate> | undefined): boolean {
  return template?.spec?.nodeReuse === true;
}

/**
 * the template a releasing machine names. As in CAPM3, only `cluster.x-k8s.io/cloned-from-name`
 * is read (not the groupkind annotation), and the template is looked up in the machine's namespace.
 */
export function releasingMachineTemplate(machine: Readonly<Metal3Machine>): TemplateKey | undefined {
  const name = machine.metadata.annotations?.[CLONED_FROM_NAME_ANNOTATION];
  const namespace = machine.metadata.namespace;
  return name && namespace ? { namespace, name } : undefined;
}

interface TemplateRef {
  readonly kind?: unknown;
  readonly name?: unknown;
  readonly namespace?: unknown;
}

/** Where the template reference sits in a control plane (either version) or a MachineDeployment, read loosely. */
interface OwnerSpec {
  readonly machineTemplate?: { readonly spec?: { readonly infrastructureRef?: TemplateRef }; readonly infrastructureRef?: TemplateRef };
  readonly template?: { readonly spec?: { readonly infrastructureRef?: TemplateRef } };
}

/**
 * B2-15: the template a control plane or MachineDeployment points to now, read at whichever version
 * it was read: a control plane's `spec.machineTemplate.spec.infrastructureRef` (v1beta2) or
 * `spec.machineTemplate.infrastructureRef` (v1beta1; upstream v1.13 reads only the v1beta2 path), a
 * MachineDeployment's `spec.template.spec.infrastructureRef`; in `namespace` unless the reference
 * names one. Undefined when it names no Metal3MachineTemplate.
 */
export function templatePointedToBy(owner: Readonly<KubeObject>, namespace: string): TemplateKey | undefined {
  const spec = (owner as { readonly spec?: OwnerSpec }).spec;
  const ref = owner.kind === 'MachineDeployment'
    ? spec?.template?.spec?.infrastructureRef
    : spec?.machineTemplate?.spec?.infrastructureRef ?? spec?.machineTemplate?.infrastructureRef;
  if (typeof ref?.name !== 'string' || ref.name === '' || (ref.kind !== undefined && ref.kind !== 'Metal3MachineTemplate')) return undefined;
  return { namespace: typeof ref.namespace === 'string' && ref.namespace !== '' ? ref.namespace : namespace, name: ref.name };
}

/** Finds a template (an informer store read or a GET); undefined when it does not exist. */
export type TemplateLookup = (key: TemplateKey) => Readonly<Metal3MachineTemplate> | undefined | Promise<Readonly<Metal3MachineTemplate> | undefined>;

/**
 * N-6/N-7/X-10/B2-15: whether releasing `machine` should reserve its host for reuse: the template its
 * owner points to now (`pointedTo`, when the owner could be read), else the one it was cloned from,
 * still exists and sets `nodeReuse: true`. A failed lookup counts as "no template", as in CAPM3.
 * (Whether the Cluster is being deleted is the caller's check.)
 */
export async function nodeReuseForReleasingMachine(machine: Readonly<Metal3Machine>, lookup: TemplateLookup, pointedTo?: TemplateKey): Promise<boolean> {
  const key = pointedTo ?? releasingMachineTemplate(machine);
  if (!key) return false;
  try {
    return nodeReuseFor(await lookup(key));
  } catch {
    return false;
  }
}
