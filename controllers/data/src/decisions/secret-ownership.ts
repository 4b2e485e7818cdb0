// Whose a Secret of a rendered name is (issue 21 point 0). A Secret counts as this Metal3Data's only
// when its controller reference carries this Metal3Data's uid: a Secret that merely exists under the
// name may be a former Metal3Data's (same name, re-created machine) holding another address, or one
// somebody else planted. Pure; phases/rendered-secrets.ts reads the Secrets.
import type { KubeObject, OwnerReference } from '@metal3-ts/generated';
import type { Metal3Data } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { apiGroupOf, getControllerOf, isControlledBy } from '@metal3-ts/shared/meta/owner-references';
import { INFRASTRUCTURE_GROUP } from '../names.ts';

export type SecretOwnership =
  /** Absent: to be rendered. */
  | { readonly kind: 'Missing' }
  /** Controlled by this Metal3Data (uid): rendered, never rewritten (D-12). */
  | { readonly kind: 'Ours' }
  /** Controlled by a Metal3Data of another uid: a leftover if that one is gone (by uid, from the cache). */
  | { readonly kind: 'FormerData'; readonly owner: OwnerReference }
  /** Anything else (no controller, another kind): never ours, never touched. */
  | { readonly kind: 'Foreign'; readonly reason: string };

/** A reference to a Metal3Data, at any version. */
export const isMetal3DataRef = (ref: OwnerReference): boolean => ref.kind === 'Metal3Data' && apiGroupOf(ref.apiVersion) === INFRASTRUCTURE_GROUP;

/** What the Secret `secret` (undefined: absent) is to `data`. */
export function secretOwnership(secret: Readonly<KubeObject> | undefined, data: Readonly<Metal3Data>): SecretOwnership {
  if (!secret) return { kind: 'Missing' };
  if (isControlledBy(secret, data)) return { kind: 'Ours' };
  const controller = getControllerOf(secret);
  if (controller && isMetal3DataRef(controller)) {
    return { kind: 'FormerData', owner: controller };
  }
  const by = controller ? `${controller.kind} ${controller.name}` : 'no controller';
  return { kind: 'Foreign', reason: `it is not controlled by this Metal3Data (${by})` };
}

/** The words of the Metal3Data's errorMessage and Warning event while a Secret blocks its name. */
export function conflictMessage(secretName: string, reason: string): string {
  return `Secret ${secretName} already exists and ${reason}: it is not used as this Metal3Data's; remove it to let the Secret be rendered`;
}
