// The one decision of a Metal3Remediation reconcile (RS-8…RS-17, R-6…R-12), pure: what the objects
// say now → the single next step. The reconcile performs that step and stops; the step's own write
// (the Metal3Remediation, the host, the Node) comes back as a watch event and decides the next one,
// so nothing polls: the waits name what ends them (a host event, a Node event, or the timeout, the
// only timer; in the out-of-service-taint mode the drain check is upstream's 5 s poll, since Pods and
// VolumeAttachments are not watched).
import { DEFAULT_TIMEOUT_MS, PHASE_DELETING, PHASE_FAILED, PHASE_RUNNING, PHASE_WAITING, REBOOT_STRATEGY } from './names.ts';

export interface RemediationView {
  readonly phase: string;
  readonly strategyType: string | undefined;
  /** `bmh.spec.online`; false means a user switched remediation off (RS-8). */
  readonly hostOnline: boolean;
  readonly hostPoweredOn: boolean;
  readonly rebootAnnotated: boolean;
  readonly hasFinalizer: boolean;
  /** The Machine's Node in the workload cluster: there, gone, or not readable (Forbidden, RS-11). */
  readonly node: 'present' | 'absent' | 'forbidden' | 'unknown';
  readonly nodeDeleting: boolean;
  /** Out-of-service-taint mode (out-of-service.ts): taint the Node instead of deleting it. */
  readonly outOfService: boolean;
  readonly tainted: boolean;
  /** No terminating Pod and no VolumeAttachment on the Node (read only when it matters). */
  readonly drained: boolean;
  /** The stored backups differ from the Node's current annotations and labels (RS-14). */
  readonly backupChanged: boolean;
  readonly lastRemediatedMs: number | undefined;
  readonly timeoutMs: number | undefined;
  readonly retryLimit: number;
  readonly retryCount: number;
  readonly nowMs: number;
}

export type Step =
  | { readonly do: 'fail' } // RS-8
  | { readonly do: 'ignore'; readonly why: string } // RS-9, RS-17
  | { readonly do: 'start' } // RS-10
  | { readonly do: 'needNode' } // RS-11: read the Node first
  | { readonly do: 'addFinalizer' }
  | { readonly do: 'powerOff' }
  | { readonly do: 'awaitPowerOff' }
  | { readonly do: 'taintNode' }
  | { readonly do: 'awaitDrain' }
  | { readonly do: 'untaintNode' }
  | { readonly do: 'backUpNode' }
  | { readonly do: 'deleteNode' }
  | { readonly do: 'awaitNodeGone' }
  | { readonly do: 'toWaiting' }
  | { readonly do: 'powerOn' }
  | { readonly do: 'awaitPowerOn' }
  | { readonly do: 'restoreNode' }
  | { readonly do: 'releaseFinalizer' }
  | { readonly do: 'awaitTimeout'; readonly ms: number }
  | { readonly do: 'retry' }
  | { readonly do: 'giveUp' };

export function decide(v: RemediationView): Step {
  if (!v.hostOnline) return v.phase === PHASE_FAILED ? { do: 'ignore', why: 'host offline' } : { do: 'fail' };
  if (v.strategyType !== REBOOT_STRATEGY) return { do: 'ignore', why: 'unsupported remediation strategy' };
  if (v.phase === '') return { do: 'start' };
  if (v.phase === PHASE_DELETING || v.phase === PHASE_FAILED) return { do: 'ignore', why: `phase ${v.phase}` };
  if (v.phase !== PHASE_RUNNING && v.phase !== PHASE_WAITING) return { do: 'ignore', why: 'unknown phase!' };
  if (v.node === 'unknown') return { do: 'needNode' };
  return v.phase === PHASE_RUNNING ? running(v) : waiting(v);
}

/** RS-12: power the host off, then back up and delete its Node, then wait for it to come back. */
function running(v: RemediationView): Step {
  if (!v.hasFinalizer) return { do: 'addFinalizer' };
  if (!v.rebootAnnotated) return { do: 'powerOff' };
  if (v.hostPoweredOn) return { do: 'awaitPowerOff' };
  if (v.node === 'present' && v.outOfService) {
    if (!v.tainted) return { do: 'taintNode' };
    if (!v.drained) return { do: 'awaitDrain' };
  } else if (v.node === 'present') {
    if (v.backupChanged) return { do: 'backUpNode' };
    return v.nodeDeleting ? { do: 'awaitNodeGone' } : { do: 'deleteNode' };
  }
  return { do: 'toWaiting' };
}

/** RS-13: power on, give the new Node its old labels, then retry or give up at the timeout. */
function waiting(v: RemediationView): Step {
  if (v.rebootAnnotated) return { do: 'powerOn' };
  if (!v.hostPoweredOn) return { do: 'awaitPowerOn' };
  if (v.hasFinalizer && v.node === 'present') return v.outOfService ? { do: 'untaintNode' } : { do: 'restoreNode' };
  if (v.hasFinalizer && v.node === 'forbidden') return { do: 'releaseFinalizer' };
  const timeoutMs = v.timeoutMs || DEFAULT_TIMEOUT_MS;
  const left = v.lastRemediatedMs === undefined ? Infinity : v.lastRemediatedMs + timeoutMs - v.nowMs;
  if (left >= 0) return { do: 'awaitTimeout', ms: Number.isFinite(left) ? left + 1 : timeoutMs };
  if (v.retryLimit > 0 && v.retryCount !== v.retryLimit) return { do: 'retry' };
  return { do: 'giveUp' };
}
