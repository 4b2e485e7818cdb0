// The one seam between the webhook server and the API's conversion rules: a Converter turns one
// object into the desired apiVersion of its group, or throws. The server knows nothing of kinds or
// fields; the converters (src/convert/, pure functions per kind) know nothing of HTTP. A converter
// that can say which field it could not convert throws ConversionFailure with that field, and the
// answer to the apiserver names it.

/** An object as the apiserver sends it in a ConversionReview: any JSON object with apiVersion and kind. */
export interface ConvertibleObject {
  apiVersion: string;
  kind: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** Converts `object` to `desiredAPIVersion` (`group/version`); throws when it cannot. Never mutates its input. */
export type Converter = (
  object: ConvertibleObject,
  desiredAPIVersion: string,
) => ConvertibleObject;

/** A conversion refused for a reason a user can act on: the field path (`spec.image.checksum`) and why. */
export class ConversionFailure extends Error {
  override name = 'ConversionFailure';
  readonly field: string | undefined;
  constructor(message: string, field?: string) {
    super(field ? `${field}: ${message}` : message);
    this.field = field;
  }
}
