// The guard decisions on which both reconcilers of this package (Metal3Data, Metal3DataTemplate)
// end without writing: the object is not ours, its Cluster does not exist yet, or it is paused. The
// watches wake them again (guards.ts says which); the log line is the only trace, worded alike for both.
import type { Logger } from '@metal3-ts/shared/log/logger';

type Quiet = { readonly kind: 'NotOurs' } | { readonly kind: 'WaitForCluster'; readonly clusterName: string } | { readonly kind: 'Paused' };

/** True (after logging why) when `decision` ends the reconcile with nothing written. */
export function endsQuietly<D extends { readonly kind: string; readonly clusterName?: string }>(decision: D, log: Logger): decision is Extract<D, Quiet> {
  switch (decision.kind) {
    case 'NotOurs':
      return true;
    case 'WaitForCluster':
      log.info('Waiting for the Cluster', { cluster: decision.clusterName });
      return true;
    case 'Paused':
      log.info('Reconciliation is paused for this object');
      return true;
    default:
      return false;
  }
}
