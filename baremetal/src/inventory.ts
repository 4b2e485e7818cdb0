// An index of hosts over the shared BareMetalHost informer, so host selection reads a handful of
// index entries instead of listing every host (CAPM3 lists the namespace on every association, A10).
// Two indexes: hosts by consumer ("which host does this machine hold") and selectable hosts by
// `namespace/key=value`, `namespace/key` and `namespace/*` ("which hosts could this machine take").
// The inventory is a pre-filter: chooseHost applies every rule again on what it returns, and claims
// are locked on the resourceVersion, so a stale cache can cost a retry but never a double claim.
import type { Informer } from '@metal3-ts/shared/cache/types';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { consumerKey, type ConsumerReference, type HostConsumer, isClaimedBy } from './consumer.ts';
import { hostSelectorRequirements, type LabelRequirement, matchesRequirements } from './label-selector.ts';
import { byHostName } from './selection.ts';
import { hasNodeReuseLabel, isAvailableState, isFree, provisioningState } from './states.ts';

export const HOST_CONSUMER_INDEX = 'metal3-ts/host-consumer';
export const SELECTABLE_HOST_INDEX = 'metal3-ts/selectable-host';

/** Files a claimed host under its consumer's key (see consumerKey). */
export function hostConsumerKeys(host: Readonly<BareMetalHost>): readonly string[] {
  const ref = host.spec?.consumerRef;
  const key = ref ? consumerKey(ref) : undefined;
  return key ? [key] : [];
}

/**
 * A host some consumer could select: free (H-5, H-6) and either `ready`/`available` (H-8) or
 * reserved by a node-reuse label, in any state, since a reservation that is not ready yet still
 * decides the outcome for its consumer (H-10).
 */
export function isSelectable(host: Readonly<BareMetalHost>): boolean {
  return isFree(host) && (hasNodeReuseLabel(host) || isAvailableState(provisioningState(host)));
}

const ALL = '*';

/**
 * Files a selectable host under `<ns>/*`, `<ns>/<key>` and `<ns>/<key>=<value>` for each label. The
 * entries cannot collide: namespaces hold no `/`, label keys hold no `=` or `*`.
 */
export function selectableHostKeys(host: Readonly<BareMetalHost>): readonly string[] {
  if (!isSelectable(host)) return [];
  const ns = host.metadata.namespace ?? '';
  const keys = [`${ns}/${ALL}`];
  for (const [key, value] of Object.entries(host.metadata.labels ?? {})) keys.push(`${ns}/${key}`, `${ns}/${key}=${value}`);
  return keys;
}

export class HostInventory {
  readonly #informer: Informer<BareMetalHost>;

  /** Adds the two indexes to `informer`; use hostInventory() to share one inventory per informer. */
  constructor(informer: Informer<BareMetalHost>) {
    this.#informer = informer;
    informer.addIndex(HOST_CONSUMER_INDEX, hostConsumerKeys);
    informer.addIndex(SELECTABLE_HOST_INDEX, selectableHostKeys);
  }

  hasSynced(): boolean {
    return this.#informer.hasSynced();
  }

  /** Hosts whose consumerRef names `consumer` (normally at most one), in name order. */
  ownedBy(consumer: ConsumerReference): readonly Readonly<BareMetalHost>[] {
    const key = consumerKey(consumer);
    if (!key) return [];
    return this.#informer.store
      .byIndex(HOST_CONSUMER_INDEX, key)
      .filter((host) => isClaimedBy(host, consumer))
      .sort(byHostName);
  }

  /**
   * Selectable hosts of `namespace` matching every requirement, in name order. Reads the smallest
   * index entry a positive requirement (`=`, `==`, `in`, `exists`, `gt`, `lt`) points to; only a
   * selector made of negative requirements alone reads the whole namespace entry.
   */
  selectable(namespace: string, requirements: readonly LabelRequirement[]): readonly Readonly<BareMetalHost>[] {
    const store = this.#informer.store;
    const lookup = (entry: string): readonly Readonly<BareMetalHost>[] => store.byIndex(SELECTABLE_HOST_INDEX, `${namespace}/${entry}`);
    let smallest: readonly Readonly<BareMetalHost>[] | undefined;
    for (const { key, operator, values } of requirements) {
      let hosts: readonly Readonly<BareMetalHost>[];
      switch (operator) {
        case '=':
        case '==':
          hosts = lookup(`${key}=${values[0] ?? ''}`);
          break;
        case 'in':
          hosts = values.flatMap((value) => lookup(`${key}=${value}`));
          break;
        case 'exists':
        case 'gt':
        case 'lt':
          hosts = lookup(key);
          break;
        default:
          continue;
      }
      if (!smallest || hosts.length < smallest.length) smallest = hosts;
      if (smallest.length === 0) return [];
    }
    return (smallest ?? lookup(ALL))
      .filter((host) => host.metadata.namespace === namespace && matchesRequirements(requirements, host.metadata.labels))
      .sort(byHostName);
  }

  /**
   * Everything chooseHost needs for `consumer`: the hosts it already holds and the selectable hosts
   * matching its selector. Throws InvalidHostSelectorError for an invalid selector.
   */
  candidates(consumer: HostConsumer): readonly Readonly<BareMetalHost>[] {
    const owned = this.ownedBy(consumer.ref);
    const matching = this.selectable(consumer.ref.namespace, hostSelectorRequirements(consumer.hostSelector));
    if (owned.length === 0) return matching;
    const ownedNames = new Set(owned.map((host) => host.metadata.name));
    return [...owned, ...matching.filter((host) => !ownedNames.has(host.metadata.name))];
  }

  /** Read your own writes: the cache serves `host` until its watch delivers that version or newer. */
  noteWrite(host: BareMetalHost): void {
    this.#informer.noteWrite(host);
  }
}

const inventories = new WeakMap<Informer<BareMetalHost>, HostInventory>();

/** The one inventory of `informer` (indexes are added once, however many controllers ask). */
export function hostInventory(informer: Informer<BareMetalHost>): HostInventory {
  let inventory = inventories.get(informer);
  if (!inventory) {
    inventory = new HostInventory(informer);
    inventories.set(informer, inventory);
  }
  return inventory;
}
