// Phase `references` (issue 21): a template with a reference into another namespace gets a Warning
// event naming the fields, and a log line; nothing is written, and cleaning mode still propagates
// (it names nothing). Writes: an Event.
import type { PhaseFn } from '../context.ts';
import { REASONS } from '../names.ts';

export const warnForeignReferences: PhaseFn = (ctx, scope) => {
  const message = scope.plan.foreignReferences;
  if (message === undefined) return;
  scope.log.info('Metal3MachineTemplate names another namespace', { message });
  ctx.deps.events?.warning(scope.template, REASONS.foreignReference, message);
};
