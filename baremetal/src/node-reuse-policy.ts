// The template's node-reuse policy, for the Metal3Machine controller (N-6, N-7, X-10). The template
// controller itself does nothing with `spec.nodeReuse`: the flag is read when a machine releases its
// host, from the template that machine was cloned from, and decides whether the host is labelled
// `infrastructure.cluster.x-k8s.io/node-reuse` for the next machine of the same control plane or
// MachineDeployment. CAPM3 keeps no status or annotation for it; neither do we.
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

/** Finds a template (an informer store read or a GET); undefined when it does not exist. */
export type TemplateLookup = (key: TemplateKey) => Readonly<Metal3MachineTemplate> | undefined | Promise<Readonly<Metal3MachineTemplate> | undefined>;

/**
 * N-6/N-7/X-10: whether releasing `machine` should reserve its host for reuse: the machine names a
 * template that still exists and sets `nodeReuse: true`. A failed lookup counts as "no template", as
 * in CAPM3. (Whether the Cluster is being deleted is the caller's check.)
 */
export async function nodeReuseForReleasingMachine(machine: Readonly<Metal3Machine>, lookup: TemplateLookup): Promise<boolean> {
  const key = releasingMachineTemplate(machine);
  if (!key) return false;
  try {
    return nodeReuseFor(await lookup(key));
  } catch {
    return false;
  }
}
