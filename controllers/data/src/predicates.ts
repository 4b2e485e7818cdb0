// Which events reach the two controllers (research D-4, DT-3, §0.6): the common filter (pause
// annotation and `--watch-filter` label, judged on every source's own object, E-20), plus dropping
// updates that change nothing but the status (our own status writes, the allocation side's index
// bookkeeping on templates): they carry nothing a reconcile would act on.
import type { KubeObject } from '@metal3-ts/generated';
import type { Predicate } from '@metal3-ts/shared/controller/predicates';
import { resourceNotPausedAndHasFilterLabel } from '@metal3-ts/shared/controller/predicates';
import { deepEqual } from '@metal3-ts/shared/patch/diff';

/** §0.6 on every source of both controllers. */
export const eventFilter = (watchFilter: string): Predicate => resourceNotPausedAndHasFilterLabel(watchFilter);

function withoutStatus(obj: Readonly<KubeObject>): unknown {
  const { status: _status, metadata, ...rest } = obj as KubeObject & { status?: unknown };
  const { resourceVersion: _rv, managedFields: _mf, ...meta } = metadata;
  return { ...rest, metadata: meta };
}

/** Updates pass when metadata (labels, annotations, finalizers, deletion) or spec changed. */
export const changedBesidesStatus: Predicate = {
  update: (old, obj) => !deepEqual(withoutStatus(old), withoutStatus(obj)),
};

/** Only appearances and disappearances (IP pools: their updates are the IPAM's bookkeeping). */
export const createOrDelete: Predicate = { update: () => false };
