// The steps of the decision (decide.ts) as writes: each changes the Metal3Remediation in memory (the
// reconcile patches it once afterwards) and/or writes one other object: the host's reboot annotation
// (BMO powers it off while present, R-13), the workload Node (delete, restore), or, on giving up, the
// Machine's conditions and the host's unhealthy annotation (RS-15, S-1).
import type { Metal3Remediation } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { Metal3MachineTemplateResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { type Node, NodeResource, type Taint } from '@metal3-ts/generated/core/v1';
import { hasOutOfServiceTaint, taintsWith, taintsWithout } from './out-of-service.ts';
import { isNotFound } from '@metal3-ts/generated';
import { CLONED_FROM_NAME_ANNOTATION } from '@metal3-ts/shared/meta/cloned-from';
import { addFinalizer, removeFinalizer } from '@metal3-ts/shared/meta/finalizers';
import type { ReconcileContext, Result } from '@metal3-ts/shared/reconcile/reconcile';
import { parseBackup, restoredMap, serialiseMap } from './backup.ts';
import type { Step } from './decide.ts';
import { markOwnerRemediated } from './machine-conditions.ts';
import {
  ANNOTATIONS_BACKUP,
  LABELS_BACKUP,
  PHASE_DELETING,
  PHASE_FAILED,
  PHASE_RUNNING,
  PHASE_WAITING,
  REBOOT_ANNOTATION_VALUE,
  rebootAnnotation,
  REMEDIATION_FINALIZER,
  UNHEALTHY_ANNOTATION,
  UNHEALTHY_VALUE,
} from './names.ts';
import type { RemediationDeps, StepScope } from './reconcile.ts';

const stamp = (d: Date) => d.toISOString().replace(/\.\d+Z$/, 'Z');
const status = (r: Metal3Remediation) => (r.status ??= {});

export async function perform(deps: RemediationDeps, s: StepScope, step: Step, context: ReconcileContext): Promise<Result | undefined> {
  const r = s.remediation;
  const hosts = deps.client.api(BareMetalHostResource, s.host.metadata.namespace);
  const nodeName = s.machine.status?.nodeRef?.name ?? '';
  switch (step.do) {
    case 'fail':
      status(r).phase = PHASE_FAILED;
      return {};
    case 'ignore':
    case 'needNode':
    case 'awaitPowerOff':
    case 'awaitPowerOn':
    case 'awaitNodeGone':
      return {}; // a host or Node event ends the wait
    case 'start':
      Object.assign(status(r), { phase: PHASE_RUNNING, lastRemediated: stamp(s.now) });
      return {};
    case 'addFinalizer':
      addFinalizer(r, REMEDIATION_FINALIZER);
      return {};
    case 'powerOff':
      deps.events?.normal(r, 'PoweringOff', `powering host ${s.host.metadata.name} off (attempt ${(r.status?.retryCount ?? 0) + 1})`);
      await hosts.mergePatch(s.host.metadata.name!, { metadata: { annotations: { [rebootAnnotation(r.metadata.uid!)]: REBOOT_ANNOTATION_VALUE } } });
      return {};
    case 'powerOn':
      await hosts.mergePatch(s.host.metadata.name!, { metadata: { annotations: { [rebootAnnotation(r.metadata.uid!)]: null } } });
      return {};
    case 'taintNode': {
      const node = (s.node as { node: Node }).node;
      await patchTaints(s, node, taintsWith(node, stamp(s.now))).catch((error: Error) => {
        throw new Error(`failed to add out-of-service taint on node ${nodeName}: ${error.message}`, { cause: error });
      });
      return {};
    }
    case 'awaitDrain':
      return { requeueAfterMs: DRAIN_POLL_MS };
    case 'untaintNode': {
      const node = (s.node as { node: Node }).node;
      if (hasOutOfServiceTaint(node)) {
        await patchTaints(s, node, taintsWithout(node)).catch((error: Error) => {
          throw new Error(`error removing out-of-service taint from node ${nodeName}: ${error.message}`, { cause: error });
        });
      }
      removeFinalizer(r, REMEDIATION_FINALIZER);
      return {};
    }
    case 'backUpNode': {
      const node = s.node?.state === 'present' ? s.node.node : undefined;
      r.metadata.annotations = {
        ...r.metadata.annotations,
        [ANNOTATIONS_BACKUP]: serialiseMap(node?.metadata.annotations),
        [LABELS_BACKUP]: serialiseMap(node?.metadata.labels),
      };
      return {};
    }
    case 'deleteNode':
      try {
        await s.workload!.api(NodeResource).delete(nodeName);
      } catch (error) {
        if (!isNotFound(error)) {
          throw new Error(`error deleting node: could not delete cluster node ${nodeName}: ${(error as Error).message}`, { cause: error });
        }
      }
      return {};
    case 'toWaiting':
      status(r).phase = PHASE_WAITING;
      return {};
    case 'restoreNode': {
      const node = s.node?.state === 'present' ? s.node.node : undefined;
      const annotations = restoredMap(node?.metadata.annotations, parseBackup(r.metadata.annotations?.[ANNOTATIONS_BACKUP]));
      const labels = restoredMap(node?.metadata.labels, parseBackup(r.metadata.annotations?.[LABELS_BACKUP]));
      if (annotations || labels) {
        try {
          await s.workload!.api(NodeResource).mergePatch(nodeName, {
            metadata: { resourceVersion: node!.metadata.resourceVersion!, ...(annotations ? { annotations } : {}), ...(labels ? { labels } : {}) },
          });
        } catch (error) {
          context.log.info('restoring the node failed (not retried, as upstream)', { node: nodeName, error: (error as Error).message });
        }
      }
      const { [ANNOTATIONS_BACKUP]: _a, [LABELS_BACKUP]: _l, ...rest } = r.metadata.annotations ?? {};
      r.metadata.annotations = rest;
      removeFinalizer(r, REMEDIATION_FINALIZER);
      return {};
    }
    case 'releaseFinalizer':
      removeFinalizer(r, REMEDIATION_FINALIZER);
      return {};
    case 'awaitTimeout':
      return { requeueAfterMs: step.ms };
    case 'retry':
      Object.assign(status(r), { phase: PHASE_RUNNING, lastRemediated: stamp(s.now), retryCount: (r.status?.retryCount ?? 0) + 1 });
      return {};
    case 'giveUp':
      deps.events?.warning(
        r,
        'RemediationFailed',
        `Node ${nodeName} did not come back after ${
          (r.status?.retryCount ?? 0) + 1
        } power cycles of host ${s.host.metadata.name}: Machine handed back to Cluster API (OwnerRemediated False)`,
      );
      await markOwnerRemediated(deps.client, s.machine, stamp(s.now));
      if (!(await reusesNodes(deps, s))) {
        await hosts.mergePatch(s.host.metadata.name!, { metadata: { annotations: { [UNHEALTHY_ANNOTATION]: UNHEALTHY_VALUE } } }).catch((error: Error) => {
          throw new Error(`error setting unhealthy annotation: ${error.message}`, { cause: error });
        });
      }
      status(r).phase = PHASE_DELETING;
      return {};
  }
}

/** Upstream re-checks the drain every 5 s (RS-12.4): Pods and VolumeAttachments are not watched here. */
const DRAIN_POLL_MS = 5_000;

/** The Node's taints replaced, guarded by its resourceVersion (upstream Updates the Node). */
function patchTaints(s: StepScope, node: Readonly<Node>, taints: Taint[]): Promise<unknown> {
  return s.workload!.api(NodeResource).mergePatch(node.metadata.name!, { metadata: { resourceVersion: node.metadata.resourceVersion! }, spec: { taints } });
}

/**
 * Whether the Metal3MachineTemplate the Metal3Machine was cloned from has `nodeReuse: true`: then the
 * host is left selectable so the replacement Machine gets it back (docs/compatibility.md; upstream
 * marks it unhealthy, which shuts the reserved host out of selection).
 */
async function reusesNodes(deps: RemediationDeps, s: StepScope): Promise<boolean> {
  const template = s.metal3Machine.metadata.annotations?.[CLONED_FROM_NAME_ANNOTATION];
  if (!template) return false;
  try {
    return (await deps.client.api(Metal3MachineTemplateResource, s.metal3Machine.metadata.namespace).get(template)).spec?.nodeReuse === true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}
