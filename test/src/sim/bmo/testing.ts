// Fixtures for the state machine's table tests: hosts in a given state as BMO would have left them,
// one reconcile (`step`), a step applied as the controller and apiserver would, and whole walks.
import { type BareMetalHost, type BareMetalHostSpec, type BareMetalHostStatus, newBareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import type { BmcSecret } from './credentials.ts';
import { ironicNodeId } from './hardware.ts';
import { BMO_FINALIZER } from './names.ts';
import { type HostStep, nextHostStatus } from './state-machine.ts';
import { type BmoTimings, resolveTimings } from './timings.ts';

export const T0 = new Date('2026-03-01T10:00:00.000Z');
export const at = (ms: number): Date => new Date(T0.getTime() + ms);
export const instant = resolveTimings('instant');
export const timed = resolveTimings('bmoTestMode');
export const IMAGE = {
  url: 'http://172.22.0.1/images/node.qcow2',
  checksum: 'http://172.22.0.1/images/node.qcow2.sha256sum',
  checksumType: 'sha256' as const,
  format: 'qcow2' as const,
};

export const secret = (resourceVersion = '7', password = 'cGFzc3dvcmQ='): BmcSecret => ({
  metadata: { name: 'h-bmc', namespace: 'ns', resourceVersion },
  data: { username: 'YWRtaW4=', password },
});
export const CREDS = { credentials: { name: 'h-bmc', namespace: 'ns' }, credentialsVersion: '7' };

export interface HostOptions {
  state?: string;
  status?: Partial<BareMetalHostStatus>;
  spec?: Partial<BareMetalHostSpec>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  deleting?: boolean;
  noStatus?: boolean;
}

/** A host in `state` as BMO would have left it (registered, finalizer on), unless told otherwise. */
export function host(options: HostOptions = {}): BareMetalHost {
  const h = newBareMetalHost({
    metadata: {
      name: 'h',
      namespace: 'ns',
      uid: 'uid-h',
      generation: 1,
      finalizers: options.finalizers ?? [BMO_FINALIZER],
      ...(options.annotations ? { annotations: options.annotations } : {}),
      ...(options.deleting ? { deletionTimestamp: '2026-03-01T09:59:00Z' } : {}),
    },
    spec: { online: false, bmc: { address: 'redfish://bmc/h', credentialsName: 'h-bmc' }, ...options.spec },
  });
  if (options.noStatus) return h;
  h.status = {
    errorCount: 0,
    errorMessage: '',
    operationalStatus: 'OK',
    poweredOn: false,
    lastUpdated: '2026-03-01T09:00:00.000Z',
    goodCredentials: CREDS,
    triedCredentials: CREDS,
    ...options.status,
    provisioning: {
      ID: '',
      state: options.state ?? 'available',
      image: { url: '' },
      ...(options.state === 'available' || options.state === 'ready' || options.state === undefined ? { rootDeviceHints: { deviceName: '/dev/sda' } } : {}),
      ...options.status?.provisioning,
    },
  };
  // The ID the simulator derives, so registration is a no-op unless a test wants otherwise.
  if (!options.status?.provisioning?.ID) h.status.provisioning.ID = ironicNodeId(h);
  return h;
}

export const step = (h: BareMetalHost, now: Date = T0, timings: BmoTimings = instant, bmcSecret: BmcSecret | undefined = secret()): HostStep | undefined =>
  nextHostStatus(h, now, timings, { bmcSecret });

export function stateAfter(h: BareMetalHost, now?: Date, timings?: BmoTimings): string | undefined {
  return step(h, now, timings)?.status?.provisioning.state;
}

/** Applies a step the way the controller and the apiserver would; returns undefined once the host is gone. */
export function applied(h: BareMetalHost, s: HostStep): BareMetalHost | undefined {
  const next = structuredClone(h);
  if (s.addFinalizer) next.metadata.finalizers = [...(next.metadata.finalizers ?? []), BMO_FINALIZER];
  if (s.removeFinalizer) {
    next.metadata.finalizers = next.metadata.finalizers?.filter((f) => f !== BMO_FINALIZER);
    if (next.metadata.deletionTimestamp && next.metadata.finalizers?.length === 0) return undefined;
  }
  for (const key of s.removeAnnotations ?? []) delete next.metadata.annotations?.[key];
  if (s.status) next.status = s.status;
  return next;
}

/** Runs reconciles until nothing is left to do (or `until` holds); returns every state entered, in order. */
export function walk(
  start: BareMetalHost,
  options: { timings?: BmoTimings; until?: (h: BareMetalHost) => boolean; max?: number } = {},
): { states: string[]; host: BareMetalHost | undefined } {
  let h: BareMetalHost | undefined = start;
  let now = T0.getTime();
  const states: string[] = [];
  for (let i = 0; i < (options.max ?? 50) && h; i++) {
    if (options.until?.(h)) break;
    const s = nextHostStatus(h, new Date(now), options.timings ?? instant, { bmcSecret: secret() });
    if (!s) break;
    const state = s.status?.provisioning.state;
    if (state !== undefined && state !== h.status?.provisioning?.state) states.push(state);
    h = applied(h, s);
    now += s.requeueAfterMs ?? 0;
  }
  return { states, host: h };
}
