// Several controller entries as one process (the all-in-one mode): one manager, one client, one
// leader-election Lease and one informer per kind, so a kind two controllers watch is listed and
// watched once. Flags are the union of the entries' own: a name two entries declare is one flag with
// one meaning (CAPM3's --metal3datatemplate-concurrency sizes both the template and the claim side),
// and must be declared alike. Each entry's register() sees exactly its own flags, and its indexes go
// through an IndexLedger, so two controllers can never silently share an index name.
import type { ControllerEntry } from './entry.ts';
import type { FlagSpec, FlagSpecs, FlagValues } from './flags.ts';
import { IndexLedger, ledgeredInformers } from './index-ledger.ts';

export class EntryFlagClashError extends Error {
  override name = 'EntryFlagClashError';
}

/** The union of the entries' flags; a name declared twice must have the same type and default. */
export function mergeEntryFlags(entries: readonly ControllerEntry<FlagSpecs>[]): FlagSpecs {
  const merged: Record<string, FlagSpec<unknown>> = {};
  const declaredBy: Record<string, string> = {};
  for (const entry of entries) {
    for (const [name, spec] of Object.entries(entry.flags ?? {})) {
      const before = merged[name];
      if (before && (before.default !== spec.default || !!before.boolean !== !!spec.boolean || before.shownDefault !== spec.shownDefault)) {
        throw new EntryFlagClashError(`--${name} is declared by ${declaredBy[name]} and ${entry.name} with different types or defaults`);
      }
      if (!before) {
        merged[name] = spec;
        declaredBy[name] = entry.name;
      }
    }
  }
  return merged;
}

/** One entry running every one of `entries`, in order, under `name`. */
export function combineEntries(name: string, entries: readonly ControllerEntry<FlagSpecs>[], leaderElectionId?: string): ControllerEntry<FlagSpecs> {
  const flags = mergeEntryFlags(entries);
  return {
    name,
    ...(leaderElectionId ? { leaderElectionId } : {}),
    flags,
    async register(deps) {
      const ledger = new IndexLedger();
      for (const entry of entries) {
        const own = Object.fromEntries(Object.keys(entry.flags ?? {}).map((k) => [k, deps.flags[k]])) as FlagValues<FlagSpecs>;
        await entry.register({ ...deps, flags: own, informers: ledgeredInformers(deps.informers, entry.name, ledger) });
      }
      deps.log.info('controllers registered', { controllers: entries.map((e) => e.name).join(','), indexes: ledger.entries().length });
    },
  };
}
