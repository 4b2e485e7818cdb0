// Who holds a host: the consumer reference written to `spec.consumerRef`, how two references are
// compared (by API group, kind, namespace and name; the version is ignored so a served-version bump
// never orphans a host, H-4), and the consumer description host selection works from.
import type { LabelSelector, ObjectReference } from '@metal3-ts/generated';
import type { Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { apiGroupOf } from '@metal3-ts/shared/meta/owner-references';

/** The object that claims a host. `uid`, when known, also makes it the host's controller owner (M-24). */
export interface ConsumerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace: string;
  readonly uid?: string | undefined;
}

/** What host selection needs to know about a consumer (section 2). */
export interface HostConsumer {
  readonly ref: ConsumerReference;
  /** Hosts must match it (H-2, H-3); absent or empty matches every host of the namespace. */
  readonly hostSelector?: LabelSelector | undefined;
  /** Preferred value of the host's failure-domain label (H-12); empty means no preference. */
  readonly failureDomain?: string | undefined;
  /**
   * The node-reuse name of this consumer (`cp-<control plane>` or `md-<MachineDeployment>`, N-3/N-4),
   * undefined when it has none or it could not be computed (then no reserved host matches, N-5).
   */
  readonly nodeReuseName?: string | undefined;
}

/**
 * The index key of a consumer: `<kind>.<group>/<namespace>/<name>` (`<kind>/…` for the core group).
 * Undefined for a reference that can never match anything (unparsable apiVersion, no kind or name).
 */
export function consumerKey(ref: Readonly<ObjectReference> | ConsumerReference): string | undefined {
  const group = apiGroupOf(ref.apiVersion ?? '');
  if (group === undefined || !ref.kind || !ref.name) return undefined;
  return `${group === '' ? ref.kind : `${ref.kind}.${group}`}/${ref.namespace ?? ''}/${ref.name}`;
}

/** True when `ref` (a host's consumerRef) names `consumer`, whatever API version either carries. */
export function consumerRefMatches(ref: Readonly<ObjectReference> | undefined | null, consumer: ConsumerReference): boolean {
  if (ref == null) return false;
  const key = consumerKey(ref);
  return key !== undefined && key === consumerKey(consumer);
}

/** The host's consumerRef names `consumer`. */
export function isClaimedBy(host: Readonly<BareMetalHost>, consumer: ConsumerReference): boolean {
  return consumerRefMatches(host.spec?.consumerRef, consumer);
}

/** The consumerRef we write: exactly apiVersion, kind, name and namespace (M-24). */
export function consumerRefFor(consumer: ConsumerReference): ObjectReference {
  return { apiVersion: consumer.apiVersion, kind: consumer.kind, name: consumer.name, namespace: consumer.namespace };
}

/** A Metal3Machine as a host consumer; the caller computes `nodeReuseName` (see node-reuse.ts). */
export function metal3MachineConsumer(machine: Readonly<Metal3Machine>, nodeReuseName?: string): HostConsumer {
  const { name, namespace, uid } = machine.metadata;
  if (!name || !namespace) throw new TypeError('a Metal3Machine consumer needs metadata.name and metadata.namespace');
  return {
    ref: { apiVersion: machine.apiVersion, kind: machine.kind, name, namespace, uid },
    hostSelector: machine.spec?.hostSelector,
    failureDomain: machine.spec?.failureDomain,
    nodeReuseName,
  };
}
