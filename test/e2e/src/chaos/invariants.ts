// What must hold at every instant of a chaos run, and what must be gone at its end, as pure checks
// over one listing of the namespace (a "world"). The sampler (sampler.ts) lists the world again and
// again while controllers are killed and the apiserver and etcd restart; every message returned here
// is a violation. Each check names the objects involved, so a failure can be looked up.
import type { Machine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Secret } from '@metal3-ts/generated/core/v1';
import type { Metal3Data, Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { IPAddress } from '@metal3-ts/generated/ipam.metal3.io/v1alpha1';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';

/** The Metal3Machine annotation naming its host (`<namespace>/<name>`), as CAPM3 writes it. */
export const HOST_ANNOTATION = 'metal3.io/BareMetalHost';

export interface World {
  readonly hosts: readonly BareMetalHost[];
  readonly metal3Machines: readonly Metal3Machine[];
  readonly machines: readonly Machine[];
  readonly datas: readonly Metal3Data[];
  readonly ipAddresses: readonly IPAddress[];
}

/** Keys that occur more than once, with the names that share each. */
function duplicates<T>(items: readonly T[], key: (item: T) => string | undefined, name: (item: T) => string): [string, string[]][] {
  const by = new Map<string, string[]>();
  for (const item of items) {
    const k = key(item);
    if (k) by.set(k, [...(by.get(k) ?? []), name(item)]);
  }
  return [...by].filter(([, names]) => names.length > 1);
}

const nameOf = (o: { metadata: { name?: string } }): string => o.metadata.name ?? '?';

/** Violations of the invariants in one world; empty when everything holds. */
export function violations(w: World): string[] {
  const out: string[] = [];
  // A host with two consumers: two live Metal3Machines past association (a provider ID set) that both
  // record it as theirs. Only those: the machine controller records its choice before claiming the
  // host and takes the record back when another machine won the claim, so two records of one host
  // for a moment, before either has a provider ID, are that protocol at work. A Metal3Machine being
  // deleted keeps its record after release, as CAPM3's does, so only live ones count.
  const associated = w.metal3Machines.filter((m) => !m.metadata.deletionTimestamp && m.spec?.providerID);
  for (const [host, m3ms] of duplicates(associated, (m) => m.metadata.annotations?.[HOST_ANNOTATION], nameOf)) {
    out.push(`host ${host} used by two Metal3Machines: ${m3ms.join(', ')}`);
  }
  // A machine with two hosts: two hosts whose consumerRef names the same Metal3Machine.
  for (const [m3m, hosts] of duplicates(w.hosts, (h) => (h.spec?.consumerRef?.kind === 'Metal3Machine' ? h.spec.consumerRef.name : undefined), nameOf)) {
    out.push(`Metal3Machine ${m3m} holds two hosts: ${hosts.join(', ')}`);
  }
  for (const [id, machines] of duplicates(w.machines, (m) => m.spec?.providerID || undefined, nameOf)) {
    out.push(`provider ID ${id} on two Machines: ${machines.join(', ')}`);
  }
  for (const [id, m3ms] of duplicates(w.metal3Machines, (m) => m.spec?.providerID || undefined, nameOf)) {
    out.push(`provider ID ${id} on two Metal3Machines: ${m3ms.join(', ')}`);
  }
  for (
    const [key, datas] of duplicates(
      w.datas,
      (d) => (d.spec?.template?.name && d.spec.index !== undefined ? `${d.spec.template.name}#${d.spec.index}` : undefined),
      nameOf,
    )
  ) out.push(`index ${key} on two Metal3Data: ${datas.join(', ')}`);
  for (const [key, addresses] of duplicates(w.ipAddresses, (a) => (a.spec?.address ? `${a.spec.pool?.name ?? '?'}:${a.spec.address}` : undefined), nameOf)) {
    out.push(`address ${key} on two IPAddresses: ${addresses.join(', ')}`);
  }
  return out;
}

export interface Remains {
  readonly world: World;
  /** Every Secret of the namespace. */
  readonly secrets: readonly Secret[];
  /** Every object still present of the kinds a deleted cluster must leave none of (Metal3 kinds, IP claims and addresses, Machines). */
  readonly objects: readonly { kind: string; name: string; finalizers: readonly string[]; deleting: boolean; owners: readonly string[] }[];
}

/** The kinds and finalizer suffix of the IP address manager (simulated in the lab, not metal3-ts). */
const IPAM_KINDS = new Set(['IPClaim', 'IPAddress', 'IPPool']);

/**
 * True for what only the IP address manager still holds: an IPClaim, IPAddress or IPPool whose every
 * finalizer is IPAM's. Releasing those is IPAM's job; the chaos run reports them apart.
 */
export function heldByIpam(o: Remains['objects'][number]): boolean {
  return IPAM_KINDS.has(o.kind) && o.finalizers.length > 0 && o.finalizers.every((f) => f.endsWith('.ipam.metal3.io'));
}

/** What a finished deletion must not leave: claimed hosts, finalizers, rendered or orphaned Secrets. */
export function leftovers(r: Remains): string[] {
  const out: string[] = [];
  for (const h of r.world.hosts) {
    if (h.spec?.consumerRef) out.push(`host ${nameOf(h)} still claimed by ${h.spec.consumerRef.kind}/${h.spec.consumerRef.name}`);
    if (h.metadata.ownerReferences?.length) {
      out.push(`host ${nameOf(h)} still owned by ${h.metadata.ownerReferences.map((o) => `${o.kind}/${o.name}`).join(', ')}`);
    }
  }
  for (const o of r.objects) {
    const detail = [
      o.deleting ? 'being deleted' : 'not deleted',
      o.finalizers.length > 0 ? `finalizers ${o.finalizers.join(', ')}` : '',
      o.owners.length > 0 ? `owners ${o.owners.join(', ')}` : 'no owner',
    ];
    out.push(`${o.kind} ${o.name} left behind (${detail.filter(Boolean).join('; ')})`);
  }
  // A Secret is orphaned when every owner it names is gone (rendered Secrets are owned by their
  // Metal3Data, the kubeconfig by its Cluster); a BMC Secret owned by a host still present is fine.
  const present = new Set(r.world.hosts.map((h) => h.metadata.uid));
  for (const s of r.secrets) {
    const owners = s.metadata.ownerReferences ?? [];
    if (owners.length > 0 && owners.every((o) => !present.has(o.uid))) {
      out.push(`orphaned Secret ${nameOf(s)} (owners gone: ${owners.map((o) => `${o.kind}/${o.name}`).join(', ')})`);
    } else if (owners.length === 0 && /-(metadata|networkdata)$/.test(nameOf(s))) out.push(`rendered Secret ${nameOf(s)} left behind without an owner`);
  }
  return out;
}
