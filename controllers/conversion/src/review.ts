// The ConversionReview protocol (apiextensions.k8s.io/v1 and v1beta1, same shape), as pure functions:
// parse a request body, convert every object through the injected Converter, build the answer. The
// apiserver sends a review for each object or list it must convert (a list's items in one review) and
// accepts the answer only whole: one object that cannot be converted fails the review, and the
// apiserver turns `result.status: Failure` and its message into the error its client sees. So the
// message names the object (kind, namespace/name, from → to) and the field; what callers may log is
// `ObjectName` and the field, never the objects' contents.
import { ConversionFailure, type Converter, type ConvertibleObject } from './converter.ts';

export const REVIEW_API_VERSIONS = ['apiextensions.k8s.io/v1', 'apiextensions.k8s.io/v1beta1'] as const;

export interface ParsedReview {
  /** The review's own apiVersion, echoed in the answer. */
  readonly apiVersion: string;
  readonly uid: string;
  readonly desiredAPIVersion: string;
  readonly objects: readonly ConvertibleObject[];
}

/** A body that is not a ConversionReview: the server answers 400 with this message. */
export class BadReview extends Error {
  override name = 'BadReview';
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v !== '';

/** Validates a decoded body; every refusal names the field at fault. */
export function parseReview(body: unknown): ParsedReview {
  if (!isRecord(body)) throw new BadReview('body: expected a JSON object (a ConversionReview)');
  const { apiVersion, kind, request } = body;
  if (!REVIEW_API_VERSIONS.includes(apiVersion as (typeof REVIEW_API_VERSIONS)[number])) {
    throw new BadReview(`apiVersion: expected one of ${REVIEW_API_VERSIONS.join(', ')}, got ${JSON.stringify(apiVersion)}`);
  }
  if (kind !== 'ConversionReview') throw new BadReview(`kind: expected ConversionReview, got ${JSON.stringify(kind)}`);
  if (!isRecord(request)) throw new BadReview('request: missing');
  if (!nonEmpty(request['uid'])) throw new BadReview('request.uid: missing');
  const desired = request['desiredAPIVersion'];
  if (!nonEmpty(desired) || !desired.includes('/')) throw new BadReview('request.desiredAPIVersion: expected group/version');
  const objects = request['objects'] ?? [];
  if (!Array.isArray(objects)) throw new BadReview('request.objects: expected a list');
  objects.forEach((o, i) => {
    if (!isRecord(o) || !nonEmpty(o['apiVersion']) || !nonEmpty(o['kind'])) {
      throw new BadReview(`request.objects[${i}]: expected an object with apiVersion and kind`);
    }
  });
  return { apiVersion: apiVersion as string, uid: request['uid'], desiredAPIVersion: desired, objects: objects as ConvertibleObject[] };
}

export type ReviewOutcome =
  | { readonly ok: true; readonly objects: readonly ConvertibleObject[] }
  | { readonly ok: false; readonly message: string; readonly failed: ObjectName; readonly field: string | undefined; readonly error: string };

/** What a log line may say about an object: who it is, never what it holds. */
export interface ObjectName {
  readonly kind: string;
  readonly namespace: string | undefined;
  readonly name: string | undefined;
  readonly from: string;
}

export function nameOf(object: ConvertibleObject): ObjectName {
  const { namespace, name, generateName } = object.metadata ?? {};
  return { kind: object.kind, namespace, name: name || (typeof generateName === 'string' ? `${generateName}*` : undefined), from: object.apiVersion };
}

function describe(o: ObjectName, to: string): string {
  const who = o.name === undefined ? '(unnamed)' : o.namespace ? `${o.namespace}/${o.name}` : o.name;
  return `converting ${o.kind} ${who} from ${o.from} to ${to}`;
}

const groupOf = (apiVersion: string) => apiVersion.slice(0, apiVersion.lastIndexOf('/') + 1);

/** Converts every object (those already at the desired version pass unchanged); the first failure fails the review. */
export function convertReview(review: ParsedReview, converter: Converter): ReviewOutcome {
  const to = review.desiredAPIVersion;
  const out: ConvertibleObject[] = [];
  for (const object of review.objects) {
    if (object.apiVersion === to) {
      out.push(object);
      continue;
    }
    const who = nameOf(object);
    const fail = (error: unknown) => {
      const reason = error instanceof ConversionFailure || error instanceof MisconvertedObject ? error.message : `internal error: ${String(error)}`;
      const field = (error as { field?: unknown } | undefined)?.field;
      return {
        ok: false as const,
        message: `${describe(who, to)}: ${reason}`,
        failed: who,
        field: typeof field === 'string' ? field : undefined,
        error: (error as Error | undefined)?.name ?? typeof error,
      };
    };
    if (groupOf(object.apiVersion) !== groupOf(to)) return fail(new ConversionFailure(`not in the group of ${to}`, 'apiVersion'));
    try {
      const converted = converter(object, to);
      checkConverted(object, converted, to);
      out.push(converted);
    } catch (error) {
      return fail(error);
    }
  }
  return { ok: true, objects: out };
}

/** A converter broke the contract the apiserver enforces (identity and version): a bug, named plainly. */
class MisconvertedObject extends Error {
  override name = 'MisconvertedObject';
  readonly field: string;
  constructor(field: string, message: string) {
    super(`${field}: ${message}`);
    this.field = field;
  }
}

function checkConverted(from: ConvertibleObject, to: ConvertibleObject, desired: string): void {
  if (!isRecord(to)) throw new MisconvertedObject('(object)', 'the converter returned no object');
  if (to.apiVersion !== desired) throw new MisconvertedObject('apiVersion', `the converter answered ${JSON.stringify(to.apiVersion)}`);
  if (to.kind !== from.kind) throw new MisconvertedObject('kind', `the converter changed it to ${JSON.stringify(to.kind)}`);
  for (const key of ['name', 'namespace', 'uid'] as const) {
    if (from.metadata?.[key] !== to.metadata?.[key]) throw new MisconvertedObject(`metadata.${key}`, 'the converter changed it');
  }
}

/** The answer body for an outcome, in the review's own apiVersion. */
export function reviewResponse(review: Pick<ParsedReview, 'apiVersion' | 'uid'>, outcome: ReviewOutcome): object {
  const response = outcome.ok
    ? { uid: review.uid, convertedObjects: outcome.objects, result: { status: 'Success' } }
    : { uid: review.uid, convertedObjects: [], result: { status: 'Failure', message: outcome.message } };
  return { apiVersion: review.apiVersion, kind: 'ConversionReview', response };
}
