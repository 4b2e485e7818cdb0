// The claim's entry in its template's ledger (DT-14, DT-15): status.indexes / status.dataNames of the
// Metal3DataTemplate, written through the grouping TemplateLedgerWriter, and only when the template
// (cache) or a write already on its way does not say it yet, so a settled claim costs no request.
import { ledgerEntryOf, ledgerHas } from '../template-status.ts';
import { templateRefOf } from '../association.ts';
import { type PhaseContext, step } from '../phase.ts';
import type { ClaimScope } from '../scope.ts';

/** Writes: the template's status entry for the claim (its bound Metal3Data's index and name). */
export async function recordInLedger(ctx: PhaseContext, scope: ClaimScope): Promise<void> {
  const { data, binding } = scope.observed;
  const { decision } = scope;
  if (!data || binding?.kind !== 'Bound' || decision.kind !== 'Allocate') return;
  const namespace = decision.template.metadata.namespace ?? '';
  const name = decision.template.metadata.name ?? '';
  const claimName = scope.claim.metadata.name ?? '';
  // The data's own index: a claim keeps the Metal3Data it has even if it came from the lineage.
  const entry = { index: data.spec?.index ?? 0, dataName: data.metadata.name ?? '' };
  const current = ctx.deps.informers.templates.store.get({ namespace, name }) ?? decision.template;
  if (ledgerHas(current.status, claimName, entry)) return;
  const pending = ctx.deps.ledger.pending(namespace, name, claimName);
  if (pending && pending.index === entry.index && pending.dataName === entry.dataName) return;
  await step(scope, 'template status', () => ctx.deps.ledger.write(namespace, name, claimName, entry));
}

/** Writes: the template's status entry for the claim, removed (release). */
export async function dropLedgerEntry(ctx: PhaseContext, scope: ClaimScope): Promise<void> {
  const ref = templateRefOf(scope.claim);
  if (ref.kind !== 'Valid') return;
  const claimName = scope.claim.metadata.name ?? '';
  const template = ctx.deps.informers.templates.store.get(ref);
  if (!template || ledgerEntryOf(template, claimName) === null) return;
  await step(scope, 'template status', () => ctx.deps.ledger.write(ref.namespace, ref.name, claimName, null));
}
