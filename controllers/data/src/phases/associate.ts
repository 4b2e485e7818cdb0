// Phase `associate` (D-9 steps 1–6, D-10): the template, claim and Metal3Machine of a Metal3Data,
// each checked against the others, and the Secrets the template asks for, named. Cache reads only:
// it writes nothing. Also the one phase of a Metal3Data without the cluster-name label (E-42), which
// can be associated with no Cluster at all.
import { secretTargets } from '../decisions/secrets.ts';
import { findAssociation } from '../decisions/association.ts';
import type { PhaseContext, PhaseResult } from '../phase.ts';
import { associationLookups, type DataScope } from '../scope.ts';
import { MISSING_CLUSTER_LABEL_MESSAGE, outcomeOf } from '../status.ts';

/** Records `association` and `targets`; ends the list when there is nothing to render (D-9 step 1) or the objects do not belong together. */
export function associate(ctx: PhaseContext, scope: DataScope): PhaseResult {
  const data = scope.observed.data;
  if (!data.spec?.template?.name) return { kind: 'Untouched' };
  const association = findAssociation(data, associationLookups(ctx.informers));
  if (association.kind !== 'Found') return outcomeOf(association);
  scope.observed.association = association.value;
  scope.observed.targets = secretTargets(data, association.value.template, association.value.metal3Machine);
  return undefined;
}

/** E-42 (fixed): the missing label is bad input the status names; adding the label resumes the Metal3Data. */
export function missingClusterLabel(): PhaseResult {
  return { kind: 'Invalid', cause: 'AssociationInvalid', message: MISSING_CLUSTER_LABEL_MESSAGE };
}
