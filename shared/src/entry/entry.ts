// A controller package's process, described rather than run: its name, its own flags and how it wires
// its controllers into a manager. The package's main.ts runs it alone (`runMain(entry)`); the
// all-in-one process combines several (`combineEntries`) into one manager, one client and one
// informer per kind. Keeping the description apart from the run is what lets the same wiring serve
// both, with no second copy of any controller's flags.
import type { MainDeps } from './run-main.ts';
import type { FlagSpecs } from './flags.ts';

export interface ControllerEntry<S extends FlagSpecs = Record<never, never>> {
  /** The process name when run alone: logs, event reportingComponent, User-Agent. */
  readonly name: string;
  /** Default for `--leader-elect-id` when run alone. */
  readonly leaderElectionId?: string;
  /** Flags of this controller beyond the common ones. */
  readonly flags?: S;
  /** Wires the controllers into `deps.manager`; runs before the manager starts. */
  register(deps: MainDeps<S>): void | Promise<void>;
}

/** Names the flag types of an entry literal (the identity; for inference). */
export function controllerEntry<S extends FlagSpecs = Record<never, never>>(entry: ControllerEntry<S>): ControllerEntry<S> {
  return entry;
}
