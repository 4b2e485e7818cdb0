// What a decision of a Metal3Data reconcile finds (research §0.4 in values instead of error types;
// "finding", not "step": a step is a request the harness's StepError names): found what it needed,
// must wait for another object (upstream's transient errors, requeued after 30 s; here woken by the
// watches), or found input that cannot work as it stands (upstream's other errors: written to
// `status.errorMessage`, retried only when something changes).

export type Finding<T> =
  | { readonly kind: 'Found'; readonly value: T }
  | { readonly kind: 'Wait'; readonly reason: string }
  | { readonly kind: 'Invalid'; readonly message: string; readonly cause: InvalidCause; readonly field?: string };

/** What kind of bad input stopped the Metal3Data (the Warning event's reason). */
export type InvalidCause =
  /** The Metal3Data, its claim, Metal3Machine or template do not belong together. */
  | 'AssociationInvalid'
  /** An IP claim reports that its pool could not serve it. */
  | 'IPAllocationFailed'
  /** The template cannot be rendered for this machine (RenderError: the field is named). */
  | 'RenderingFailed'
  /** The template names an IP pool that does not exist (issue 21 point 4). */
  | 'IPPoolNotFound';

export const found = <T>(value: T): Finding<T> => ({ kind: 'Found', value });
export const wait = (reason: string): Finding<never> => ({ kind: 'Wait', reason });
export const invalid = (cause: InvalidCause, message: string, field?: string): Finding<never> => ({
  kind: 'Invalid',
  cause,
  message,
  ...(field !== undefined ? { field } : {}),
});
