// Kubernetes' garbage collector, reduced to what the lab needs: the test apiserver runs without
// kube-controller-manager, so objects whose owners are all gone (rendered Secrets of a deleted
// Metal3Data, a Metal3DataTemplate of a deleted Cluster, …) would stay forever. Every `intervalMs` it
// lists the given kinds and deletes (background propagation) each object that has ownerReferences and
// none of whose owners still exists with the referenced UID, as the real collector does.
// Not covered: foreground deletion, blockOwnerDeletion, orphaning, cluster-scoped owners of namespaced
// objects (owners are looked up in the dependent's namespace).
import { type Client, isConflict, isNotFound, type KubeObject, type OwnerReference, registry, type ResourceDescriptor } from '@metal3-ts/generated';
import type { Runnable } from '@metal3-ts/shared/manager/runnable';
import type { SimulatorDeps } from '../simulator.ts';

export interface GarbageCollectorOptions {
  /** The kinds whose objects may be collected. */
  readonly dependents: readonly ResourceDescriptor[];
  /** Between two sweeps (default 500 ms). */
  readonly intervalMs?: number;
  /** Only this namespace (default: all). */
  readonly namespace?: string;
}

/**
 * How to read an owner: its own version if generated (Cluster API's v1beta1 and v1beta2 both are), else
 * another generated version of the same group and kind (the apiserver serves the object in every
 * version it serves). Undefined for a kind not generated at all.
 */
export function ownerDescriptor(ref: Pick<OwnerReference, 'apiVersion' | 'kind'>): ResourceDescriptor | undefined {
  const exact = registry.forObject({ apiVersion: ref.apiVersion, kind: ref.kind });
  if (exact) return exact;
  const group = ref.apiVersion.includes('/') ? ref.apiVersion.slice(0, ref.apiVersion.indexOf('/')) : '';
  return registry.all().find((d) => d.group === group && d.kind === ref.kind);
}

/** True while some owner still exists with the UID the reference names (an unknown kind counts as existing). */
async function ownerExists(client: Client, namespace: string | undefined, ref: OwnerReference): Promise<boolean> {
  const descriptor = ownerDescriptor(ref);
  if (!descriptor) return true;
  try {
    const owner = await client.api(descriptor, descriptor.namespaced ? namespace : undefined).get(ref.name);
    return owner.metadata.uid === ref.uid;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

/** One sweep (of `namespace`, default all); returns the `Kind namespace/name` of every object it deleted. */
export async function collectGarbage(client: Client, dependents: readonly ResourceDescriptor[], namespace?: string): Promise<string[]> {
  const deleted: string[] = [];
  for (const descriptor of dependents) {
    const api = namespace === undefined ? client.all(descriptor) : client.api(descriptor, namespace);
    for await (const obj of api.listAll()) {
      const owners = (obj as KubeObject).metadata.ownerReferences ?? [];
      if (owners.length === 0 || obj.metadata.deletionTimestamp) continue;
      const alive = await Promise.all(owners.map((ref) => ownerExists(client, obj.metadata.namespace, ref)));
      if (alive.some(Boolean)) continue;
      try {
        // As the real collector: only the object judged (uid), never a new one of the same name.
        await client.api(descriptor, obj.metadata.namespace).delete(obj.metadata.name ?? '', { preconditions: { uid: obj.metadata.uid ?? '' } });
        deleted.push(`${descriptor.kind} ${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`);
      } catch (error) {
        if (!isNotFound(error) && !isConflict(error)) throw error;
      }
    }
  }
  return deleted;
}

export function garbageCollector(deps: SimulatorDeps, options: GarbageCollectorOptions): Runnable[] {
  return [
    {
      name: 'garbage-collector',
      needsLeaderElection: false,
      async start(signal: AbortSignal): Promise<void> {
        while (!signal.aborted) {
          try {
            for (const what of await collectGarbage(deps.client, options.dependents, options.namespace)) deps.log.info('garbage collected', { object: what });
          } catch (error) {
            deps.log.warn('garbage collection sweep failed', { error: String(error) });
          }
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, options.intervalMs ?? 500);
            signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
          });
        }
      },
    },
  ];
}
