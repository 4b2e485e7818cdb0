// The one error the conversion rules raise: input that no rule can read (not an object, an unknown
// kind or version, a `spec` or `status` that is not an object). It names the kind and the field so the
// webhook can answer the apiserver with a message a user can act on.

export class ConversionError extends Error {
  override readonly name = 'ConversionError';
  readonly kind: string;
  /** Dotted path of the offending field, '' for the object itself. */
  readonly field: string;
  readonly reason: string;

  constructor(kind: string, field: string, reason: string) {
    super(`${kind || 'object'}${field ? ` ${field}` : ''}: ${reason}`);
    this.kind = kind;
    this.field = field;
    this.reason = reason;
  }
}
