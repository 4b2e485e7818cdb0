// Who filed which index on which kind, for a process that runs several controllers on one informer
// per kind. An informer keeps the first function added under a name and ignores later ones, which is
// right for one controller asking twice and wrong for two controllers that happen to pick one name
// for two different functions: the second would silently read the first's index. The ledger turns
// that into an error at start-up, naming both controllers.
import { gvkKey, type KubeObject, type ResourceDescriptor } from '@metal3-ts/generated';
import type { IndexFn, Informer } from '../cache/types.ts';
import { type InformerFactory, selectionKey } from '../cache/informer-factory.ts';

export class IndexClashError extends Error {
  override name = 'IndexClashError';
}

interface Filing {
  readonly owner: string;
  readonly fn: IndexFn<never>;
}

export class IndexLedger {
  readonly #filings = new Map<string, Filing>();

  /**
   * Records that `owner` files `fn` under `index` on `kind`. The same owner may repeat itself, and two
   * owners may share one function (a harness indexer such as `byOwnerUid`); two owners with two
   * functions under one name clash.
   */
  file(kind: string, index: string, fn: IndexFn<never>, owner: string): void {
    const key = `${kind} ${index}`;
    const before = this.#filings.get(key);
    if (!before) {
      this.#filings.set(key, { owner, fn });
      return;
    }
    if (before.owner === owner || before.fn === fn) return;
    throw new IndexClashError(
      `index "${index}" on ${kind} is filed by ${before.owner} and by ${owner} with different functions; one process cannot share it (rename one)`,
    );
  }

  /** Every filing, as `kind index → owner` (tests and diagnostics). */
  entries(): readonly (readonly [string, string])[] {
    return [...this.#filings].map(([key, f]) => [key, f.owner] as const);
  }
}

/**
 * `factory` as `owner` sees it: the same informers (one per kind, shared), whose `addIndex` goes
 * through `ledger` first. A projection is served by the kind's full informer: the kinds controllers
 * project (Machines, Metal3Machines, hosts) are those the machine controller caches in full, so in
 * one process a second, projected copy would only add memory. Everything else is the factory's own.
 */
export function ledgeredInformers(factory: InformerFactory, owner: string, ledger: IndexLedger): InformerFactory {
  const wrap = <T extends KubeObject>(descriptor: ResourceDescriptor<T>, informer: Informer<T>, suffix = ''): Informer<T> => {
    const kind = gvkKey(descriptor.group, descriptor.version, descriptor.kind) + suffix;
    return forwarding(informer, {
      addIndex: (name: string, fn: IndexFn<T>) => {
        ledger.file(kind, name, fn as IndexFn<never>, owner);
        informer.addIndex(name, fn);
      },
    });
  };
  return forwarding(factory, {
    informerFor: <T extends KubeObject>(d: ResourceDescriptor<T>) => wrap(d, factory.informerFor(d)),
    selectedInformerFor: <T extends KubeObject>(d: ResourceDescriptor<T>, s: Parameters<InformerFactory['selectedInformerFor']>[1]) =>
      wrap(d, factory.selectedInformerFor(d, s as never) as Informer<T>, selectionKey(s)),
    projectedInformerFor: <T extends KubeObject>(d: ResourceDescriptor<T>) => wrap(d, factory.informerFor(d)),
  });
}

/** `target` with some members replaced; the rest are read from (and methods bound to) the target, private fields and all. */
function forwarding<T extends object>(target: T, overrides: Partial<Record<keyof T, unknown>>): T {
  return new Proxy(target, {
    get(t, property) {
      if (Object.hasOwn(overrides, property)) return overrides[property as keyof T];
      const value: unknown = Reflect.get(t, property, t);
      return typeof value === 'function' ? value.bind(t) : value;
    },
  });
}
