// What the phases of one Metal3Cluster reconcile found, for deriveStatus (status.ts) to turn into
// conditions and status fields. A phase records here and never sets a condition itself; a later
// phase of the same pass replaces an earlier finding of the same topic.

/** What the reconcile found; one of these decides BaremetalInfrastructureReady and the Ready conditions. */
export type ClusterOutcome =
  /** C-14: owner found, endpoint valid. */
  | { readonly kind: 'Ready' }
  /** C-13: `message` names the field(s). */
  | { readonly kind: 'EndpointInvalid'; readonly message: string }
  /** C-8. */
  | { readonly kind: 'OwnerClusterMissing'; readonly message: string }
  /** A write the apiserver refused (RBAC, validation); `message` names verb and resource. Not upstream. */
  | { readonly kind: 'RequestRefused'; readonly message: string }
  /** C-11, still waiting for machines. */
  | { readonly kind: 'Deleting'; readonly message: string }
  /** C-9, C-10: nothing but the summaries (and the Paused condition). */
  | { readonly kind: 'Unchanged' };

/** The named units of work of a reconcile; a failure carries the one it happened in (StepError.step). */
export type ClusterStep = 'spec defaults' | 'finalizer' | 'outcome' | 'finalizer removal' | 'status';

export interface Observations {
  /** What the outcome or deletion phase found (undefined: nothing to report, as a paused pass). */
  outcome?: ClusterOutcome;
  /** C-11: our finalizer is off; the object is on its way out and its status is not written. */
  released?: boolean;
  /** What a phase threw (a StepError naming its step); a refusal is shown, anything else leaves the status as it is. */
  failure?: unknown;
}
