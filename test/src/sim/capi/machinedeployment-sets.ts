// What a MachineDeployment asks of its MachineSets, with no I/O: the defaults CAPI's webhook and
// controller keep on the deployment, the MachineSet for a template revision, which existing set is
// the new one, revisions, and which old sets history no longer needs.
import { type MachineDeployment, type MachineSet, newMachineSet } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { sameRevision, templateHash } from './machinedeployment-hash.ts';
import {
  CLUSTER_NAME_LABEL,
  DESIRED_REPLICAS_ANNOTATION,
  MACHINE_DEPLOYMENT_NAME_LABEL,
  MACHINE_TEMPLATE_HASH_LABEL,
  MAX_REPLICAS_ANNOTATION,
  REVISION_ANNOTATION,
} from './machineset-constants.ts';
import { controllerRef } from './machineset-machine.ts';

export const DEFAULT_REVISION_HISTORY_LIMIT = 1;

export function deploymentReplicas(md: Readonly<MachineDeployment>): number {
  return md.spec?.replicas ?? 1;
}

/**
 * The labels CAPI keeps on a deployment (webhook defaults plus controller): cluster-name on the
 * deployment, and cluster-name and deployment-name in its selector and template labels. Returns
 * whether anything changed.
 */
export function ensureDeploymentLabels(md: MachineDeployment): boolean {
  const spec = md.spec;
  const name = md.metadata.name;
  if (!spec || !name) return false;
  const before = JSON.stringify([md.metadata.labels, spec.selector, spec.template.metadata]);
  const wanted = { [CLUSTER_NAME_LABEL]: spec.clusterName, [MACHINE_DEPLOYMENT_NAME_LABEL]: name };
  md.metadata.labels = { ...md.metadata.labels, [CLUSTER_NAME_LABEL]: spec.clusterName };
  spec.selector = { ...spec.selector, matchLabels: { ...spec.selector.matchLabels, ...wanted } };
  spec.template = { ...spec.template, metadata: { ...spec.template.metadata, labels: { ...spec.template.metadata?.labels, ...wanted } } };
  return JSON.stringify([md.metadata.labels, spec.selector, spec.template.metadata]) !== before;
}

export function revisionOf(obj: { metadata: { annotations?: Record<string, string> } }): number {
  const value = Number(obj.metadata.annotations?.[REVISION_ANNOTATION] ?? 0);
  return Number.isInteger(value) && value > 0 ? value : 0;
}

// Creation time has a one-second grain; the revision orders sets created within the same second.
const byAge = (a: Readonly<MachineSet>, b: Readonly<MachineSet>) => {
  const x = a.metadata.creationTimestamp ?? '';
  const y = b.metadata.creationTimestamp ?? '';
  if (x !== y) return x < y ? -1 : 1;
  return revisionOf(a) - revisionOf(b) || ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1);
};
const byRevision = (a: Readonly<MachineSet>, b: Readonly<MachineSet>) => revisionOf(a) - revisionOf(b) || byAge(a, b);

/** The set made from the deployment's current template (the oldest such, as CAPI), and the others. */
export function splitSets(
  md: Readonly<MachineDeployment>,
  sets: readonly Readonly<MachineSet>[],
): { newSet?: Readonly<MachineSet>; oldSets: Readonly<MachineSet>[] } {
  const sorted = [...sets].sort(byAge);
  const newSet = sorted.find((ms) => sameRevision(ms.spec?.template, md.spec?.template));
  const oldSets = sorted.filter((ms) => ms !== newSet);
  return newSet ? { newSet, oldSets } : { oldSets };
}

/** The MachineSet for the deployment's current template. */
export function machineSetForDeployment(md: Readonly<MachineDeployment>, options: { replicas: number; revision: number; maxReplicas: number }): MachineSet {
  const spec = md.spec;
  if (!spec) throw new Error(`MachineDeployment ${md.metadata.name}: no spec`);
  const hash = templateHash(spec.template);
  const name = md.metadata.name ?? '';
  const templateLabels = { ...spec.template.metadata?.labels, [MACHINE_TEMPLATE_HASH_LABEL]: hash };
  return newMachineSet({
    metadata: {
      name: `${name}-${hash}`,
      namespace: md.metadata.namespace ?? '',
      labels: { ...templateLabels, [CLUSTER_NAME_LABEL]: spec.clusterName, [MACHINE_DEPLOYMENT_NAME_LABEL]: name },
      annotations: {
        [REVISION_ANNOTATION]: String(options.revision),
        [DESIRED_REPLICAS_ANNOTATION]: String(deploymentReplicas(md)),
        [MAX_REPLICAS_ANNOTATION]: String(options.maxReplicas),
      },
      ownerReferences: [controllerRef(md)],
    },
    spec: {
      clusterName: spec.clusterName,
      replicas: options.replicas,
      selector: { ...spec.selector, matchLabels: { ...spec.selector.matchLabels, [MACHINE_TEMPLATE_HASH_LABEL]: hash } },
      template: {
        metadata: { ...spec.template.metadata, labels: templateLabels },
        ...(spec.template.spec ? { spec: structuredClone(spec.template.spec) } : {}),
      },
      ...(spec.strategy?.rollingUpdate?.deletePolicy ? { deletePolicy: spec.strategy.rollingUpdate.deletePolicy } : {}),
      ...(spec.minReadySeconds !== undefined ? { minReadySeconds: spec.minReadySeconds } : {}),
    },
  });
}

/** The revision a newly created set gets: one past every revision seen so far. */
export function nextRevision(sets: readonly Readonly<MachineSet>[]): number {
  return Math.max(0, ...sets.map(revisionOf)) + 1;
}

/**
 * Old sets to delete: empty ones (no replicas wanted, no Machines left) beyond the newest
 * `revisionHistoryLimit`, lowest revision first.
 */
export function setsToPrune(md: Readonly<MachineDeployment>, oldSets: readonly Readonly<MachineSet>[]): Readonly<MachineSet>[] {
  const limit = md.spec?.revisionHistoryLimit ?? DEFAULT_REVISION_HISTORY_LIMIT;
  const empty = [...oldSets].sort(byRevision).filter((ms) =>
    (ms.spec?.replicas ?? 0) === 0 && (ms.status?.replicas ?? 0) === 0 && !ms.metadata.deletionTimestamp
  );
  return empty.slice(0, Math.max(0, empty.length - limit));
}
