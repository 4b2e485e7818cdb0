// The revision of a MachineDeployment's template: a short stable hash of the fields that, when they
// change, call for new Machines (a rollout). Fields CAPI updates in place (labels, annotations, the
// node drain/deletion/volume-detach timeouts) are left out, so changing them does not roll Machines.
// Used as the `machine-template-hash` label and in the MachineSet's name, which makes MachineSet
// creation idempotent.
import type { MachineDeploymentSpecTemplate, MachineSetSpecTemplate } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { ObjectReference } from '@metal3-ts/generated';
import { groupOfApiVersion } from './machineset-clone.ts';

/** 32-bit FNV-1a over the UTF-16 code units of `text`, as an unsigned integer. */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

// The apiserver's SafeEncodeString alphabet: no vowels (no words), no look-alikes.
const SAFE = 'bcdfghjklmnpqrstvwxz2456789';

/** A number written in the safe alphabet (what Kubernetes uses for pod-template-hash). */
export function safeEncode(value: number): string {
  let n = value >>> 0;
  let out = '';
  do {
    out = SAFE[n % SAFE.length] + out;
    n = Math.floor(n / SAFE.length);
  } while (n > 0);
  return out;
}

// A reference is identified by group, kind and name: a version bump of the same template is not a rollout.
function refIdentity(ref: Readonly<ObjectReference> | undefined): string | null {
  return ref ? `${groupOfApiVersion(ref.apiVersion ?? '')}|${ref.kind ?? ''}|${ref.name ?? ''}` : null;
}

type AnyTemplate = Readonly<MachineDeploymentSpecTemplate> | Readonly<MachineSetSpecTemplate>;

/** The fields of a Machine template whose change replaces Machines, in a canonical JSON form. */
export function rolloutIdentity(template: AnyTemplate | undefined): string {
  const spec = template?.spec;
  return JSON.stringify({
    version: spec?.version ?? null,
    failureDomain: spec?.failureDomain ?? null,
    infrastructureRef: refIdentity(spec?.infrastructureRef),
    configRef: refIdentity(spec?.bootstrap?.configRef),
    dataSecretName: spec?.bootstrap?.dataSecretName ?? null,
    readinessGates: spec?.readinessGates ?? null,
  });
}

/** The `machine-template-hash` value of a template. */
export function templateHash(template: AnyTemplate | undefined): string {
  return safeEncode(fnv1a32(rolloutIdentity(template)));
}

/** True when Machines made from `a` would need replacing to match `b`. */
export function sameRevision(a: AnyTemplate | undefined, b: AnyTemplate | undefined): boolean {
  return rolloutIdentity(a) === rolloutIdentity(b);
}
