// A model of how CAPM3 v1.12.7 associates hosts, built from research A10 (not from its code): every
// association holds one process-wide lock, lists the namespace's BareMetalHosts matching the
// selector straight from the apiserver (the cache is bypassed on purpose), picks an available host
// and patches its consumerRef. Running this model against the same apiserver and the same hosts as
// our controller gives the side-by-side figure S2 asks for; it covers the association step only,
// not the rest of a reconcile, so it flatters the reference if anything.
import type { Client } from '@metal3-ts/generated';
import { type BareMetalHost, BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { Metal3MachineResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { forEach, POOL_LABEL } from './machine-scene.ts';

export interface ReferenceAssociation {
  /** Seconds from the first association starting until the last one is done. */
  readonly seconds: number;
  /** Per association: seconds from its start (all start together, as N queued reconciles) to its patch. */
  readonly perMachineSeconds: readonly number[];
  /** Bytes of host lists read per association (the JSON the apiserver sent, re-serialized). */
  readonly listBytesPerAssociation: number;
  readonly requests: number;
}

const selectable = (h: Readonly<BareMetalHost>) =>
  !h.spec?.consumerRef && !h.metadata.deletionTimestamp && ['available', 'ready'].includes(h.status?.provisioning?.state ?? '') && !h.status?.errorMessage;

/**
 * `machines` associations by `workers` concurrent reconciles sharing one lock, through `client`
 * (give it CAPM3's 20/30 limiter for parity). Claims with consumers named `<prefix>-<i>`; `release`
 * gives the hosts back.
 */
export async function referenceAssociate(client: Client, namespace: string, prefix: string, machines: number, workers = 10): Promise<ReferenceAssociation> {
  const hosts = client.api(BareMetalHostResource, namespace);
  let lock: Promise<void> = Promise.resolve();
  const locked = <T>(work: () => Promise<T>): Promise<T> => {
    const run = lock.then(work);
    lock = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  };
  let bytes = 0;
  let requests = 0;
  const perMachineSeconds: number[] = [];
  const t0 = performance.now();
  await forEach(machines, workers, (i) =>
    locked(async () => {
      const list = await hosts.list({ labelSelector: `${POOL_LABEL}=bench` });
      requests++;
      bytes += JSON.stringify(list).length;
      const candidates = list.items.filter(selectable);
      const chosen = candidates[Math.floor(Math.random() * candidates.length)];
      if (!chosen) throw new Error(`reference model: no host left for machine ${i}`);
      await hosts.mergePatch(chosen.metadata.name!, {
        spec: { consumerRef: { apiVersion: Metal3MachineResource.apiVersion, kind: 'Metal3Machine', name: `${prefix}-${i}`, namespace } },
      });
      requests++;
      perMachineSeconds.push((performance.now() - t0) / 1000);
    }));
  return { seconds: (performance.now() - t0) / 1000, perMachineSeconds, listBytesPerAssociation: bytes / machines, requests };
}

/** Clears the consumerRef of every host the model claimed (consumer names starting with `prefix-`). */
export async function releaseReferenceClaims(client: Client, namespace: string, prefix: string): Promise<void> {
  const hosts = client.api(BareMetalHostResource, namespace);
  const claimed = (await hosts.list()).items.filter((h) => h.spec?.consumerRef?.name?.startsWith(`${prefix}-`));
  await forEach(claimed.length, 16, async (i) => {
    await hosts.mergePatch(claimed[i]!.metadata.name!, { spec: { consumerRef: null } });
  });
}
