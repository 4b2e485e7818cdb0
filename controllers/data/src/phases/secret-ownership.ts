// Whose a Secret of a rendered name is (issue 21 point 0). A Secret counts as this Metal3Data's only
// when its controller reference carries this Metal3Data's uid: a Secret that merely exists under the
// name may be a former Metal3Data's (same name, re-created machine) holding another address, or one
// somebody else planted. Pure; phases/rendered-secrets.ts reads the Secrets and the former owners.
import type { KubeObject, OwnerReference } from '@metal3-ts/generated';
import type { Metal3Data } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { INFRASTRUCTURE_GROUP } from '../names.ts';

export type SecretOwnership =
  /** Absent: to be rendered. */
  | { readonly kind: 'Missing' }
  /** Controlled by this Metal3Data (uid): rendered, never rewritten (D-12). */
  | { readonly kind: 'Ours' }
  /** Controlled by a Metal3Data of another uid: a leftover if that one is gone (checked live). */
  | { readonly kind: 'FormerData'; readonly owner: OwnerReference; readonly uid: string; readonly deleting: boolean }
  /** Anything else (no controller, another kind): never ours, never touched. */
  | { readonly kind: 'Foreign'; readonly reason: string };

/** The controller reference of `obj`, if any. */
export function controllerOf(obj: Readonly<KubeObject>): OwnerReference | undefined {
  return (obj.metadata.ownerReferences ?? []).find((ref) => ref.controller === true);
}

const isMetal3DataRef = (ref: OwnerReference): boolean => ref.kind === 'Metal3Data' && ref.apiVersion.startsWith(`${INFRASTRUCTURE_GROUP}/`);

/** What the Secret `secret` (undefined: absent) is to `data`. */
export function secretOwnership(secret: Readonly<KubeObject> | undefined, data: Readonly<Metal3Data>): SecretOwnership {
  if (!secret) return { kind: 'Missing' };
  const controller = controllerOf(secret);
  const uid = data.metadata.uid ?? '';
  if (controller && uid !== '' && controller.uid === uid) return { kind: 'Ours' };
  if (controller && isMetal3DataRef(controller)) {
    return { kind: 'FormerData', owner: controller, uid: secret.metadata.uid ?? '', deleting: secret.metadata.deletionTimestamp !== undefined };
  }
  const by = controller ? `${controller.kind} ${controller.name}` : 'no controller';
  return { kind: 'Foreign', reason: `it is not controlled by this Metal3Data (${by})` };
}

/** The words of the Metal3Data's errorMessage and Warning event while a Secret blocks its name. */
export function conflictMessage(secretName: string, reason: string): string {
  return `Secret ${secretName} already exists and ${reason}: it is not used as this Metal3Data's; remove it to let the Secret be rendered`;
}
