// What the phases of one Metal3Machine reconcile found, in their own words, for deriveStatus
// (status.ts) to turn into conditions and status fields. A phase records here; it never writes a
// condition. Each field is one topic; a later phase of the same pass replaces an earlier finding of
// its topic (the last word wins), and deriveStatus applies the topics in a fixed order.
import type { Metal3MachineStatusAddresses } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { DataReferences } from './data-references.ts';

/** The named units of work of a reconcile; a failure carries the one it happened in (StepError.step). */
export type MachineStep =
  | 'finalizer'
  | 'pause'
  | 'guard'
  | 'spec'
  | 'settled'
  | 'associate'
  | 'forget'
  | 'strays'
  | 'metadata'
  | 'host'
  | 'node'
  | 'dissociate'
  | 'release';

/** Why association cannot proceed yet (M-9, M-11…M-13, M-20, H-10, H-11). */
export type AssociateWait =
  | { readonly kind: 'OwnerRef' }
  | { readonly kind: 'Machine'; readonly message: string }
  | { readonly kind: 'Cluster'; readonly message: string }
  | { readonly kind: 'Infrastructure' }
  | { readonly kind: 'Metal3Cluster' }
  | { readonly kind: 'Bootstrap' }
  | { readonly kind: 'Host'; readonly message: string };

/** AssociateBMH / AssociateBareMetalHost: waiting, associated (M-27) or failed (M-21). */
export type Association = AssociateWait | { readonly kind: 'Associated' } | { readonly kind: 'Failed'; readonly message: string };

/** M-16 and the pause propagation outcomes of M-14/M-15. */
export type PauseState = 'Paused' | 'NotPaused' | { readonly failed: 'set' | 'remove'; readonly message: string };

/** The steps whose problem shows on KubernetesNodeReady and AssociateMetal3MachineMetaData (M-28, X-1…X-3). */
export type NodeProblemStep = 'AssociateM3MetaDataFailed' | 'Deleting' | 'DisassociateM3MetaDataFailed' | 'DeletionFailed';

/** KubernetesNodeReady: the Node found (E-5), awaited (a past problem turns into this wait), or a problem. */
export type NodeState =
  | { readonly kind: 'Ready' }
  | { readonly kind: 'Waiting'; readonly message: string }
  | { readonly kind: 'Problem'; readonly step: NodeProblemStep; readonly message: string };

/** Metal3DataReady: rendered (M-36), awaited, or set by whoever wrote the Secrets (M-19, P-9). */
export type DataState = { readonly kind: 'Ready' } | { readonly kind: 'Waiting'; readonly message: string } | { readonly kind: 'External' };

export interface Observations {
  pause?: PauseState;
  association?: Association;
  /** M-28: the metadata step succeeded (AssociateMetal3MachineMetaData True). */
  metadataAssociated?: boolean;
  node?: NodeState;
  data?: DataState;
  /** M-31: the host's addresses as the machine shows them. */
  addresses?: Metal3MachineStatusAddresses[];
  /** P-*: the provider ID agreed with the workload cluster (goes to spec.providerID). */
  providerID?: string;
  /** M-32: the machine is ready (status.ready). */
  ready?: boolean;
  /** The Secrets the host is provisioned from (data-references.ts); undefined: as the object has them. */
  references?: DataReferences;
  /** M-26: the BMC Secret label landed; the mark goes on the machine with its provider ID (labelCredentials). */
  secretLabelled?: string;
  /** What a step threw; deriveStatus shows it on the condition of that step. */
  failure?: unknown;
}
