// Table tests of the ConversionReview protocol: what is refused as a bad review (400, field named),
// what a converter's failure becomes (Failure naming object and field), and the answer's shape.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConversionFailure, type Converter, type ConvertibleObject } from './converter.ts';
import { BadReview, convertReview, parseReview, reviewResponse } from './review.ts';

const V1 = 'infrastructure.cluster.x-k8s.io/v1beta1';
const V2 = 'infrastructure.cluster.x-k8s.io/v1beta2';
const obj = (
  name: string,
  apiVersion = V1,
  spec: unknown = {},
): ConvertibleObject => ({
  apiVersion,
  kind: 'Metal3Cluster',
  metadata: { name, namespace: 'ns', uid: `uid-${name}` },
  spec,
});
const review = (request: unknown, apiVersion = 'apiextensions.k8s.io/v1') => ({
  apiVersion,
  kind: 'ConversionReview',
  request,
});

const bad: [string, unknown, RegExp][] = [
  ['not an object', [], /^body: /],
  ['unknown review version', {
    ...review({}),
    apiVersion: 'apiextensions.k8s.io/v2',
  }, /^apiVersion: .*got "apiextensions.k8s.io\/v2"/],
  ['wrong kind', { ...review({}), kind: 'AdmissionReview' }, /^kind: /],
  ['no request', {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'ConversionReview',
  }, /^request: missing/],
  ['no uid', review({ desiredAPIVersion: V2, objects: [] }), /^request.uid: /],
  [
    'desired version without group',
    review({ uid: 'u', desiredAPIVersion: 'v1beta2', objects: [] }),
    /^request.desiredAPIVersion: /,
  ],
  [
    'objects not a list',
    review({ uid: 'u', desiredAPIVersion: V2, objects: {} }),
    /^request.objects: /,
  ],
  [
    'an object without kind',
    review({ uid: 'u', desiredAPIVersion: V2, objects: [{ apiVersion: V1 }] }),
    /^request.objects\[0\]: /,
  ],
];
for (const [title, body, message] of bad) {
  test(`parseReview refuses ${title}, naming the field`, () => {
    try {
      parseReview(body);
      assert.unreachable('accepted');
    } catch (error) {
      assert.instance(error, BadReview);
      assert.match((error as Error).message, message);
    }
  });
}

test('parseReview accepts v1 and v1beta1 reviews and echoes their version; no objects is an empty list', () => {
  for (const v of ['apiextensions.k8s.io/v1', 'apiextensions.k8s.io/v1beta1']) {
    const parsed = parseReview(review({ uid: 'u1', desiredAPIVersion: V2 }, v));
    assert.equal(parsed, {
      apiVersion: v,
      uid: 'u1',
      desiredAPIVersion: V2,
      objects: [],
    });
  }
});

const toV2: Converter = (o, to) => ({
  ...o,
  apiVersion: to,
  spec: { converted: true },
});
const failing = (field: string | undefined): Converter => () => {
  throw new ConversionFailure('cannot be represented', field);
};
const cases: [
  string,
  ConvertibleObject[],
  Converter,
  { ok: boolean; message?: RegExp; field?: string; specs?: unknown[] },
][] = [
  ['every object converted, in order', [obj('a'), obj('b')], toV2, {
    ok: true,
    specs: [{ converted: true }, { converted: true }],
  }],
  [
    'an object already at the desired version passes unchanged',
    [obj('a', V2, { x: 1 })],
    failing('spec'),
    { ok: true, specs: [{ x: 1 }] },
  ],
  [
    'a ConversionFailure names the object, both versions and the field',
    [obj('a'), obj('b')],
    failing('spec.failureDomains'),
    {
      ok: false,
      field: 'spec.failureDomains',
      message: /^converting Metal3Cluster ns\/b? ?.*from .*v1beta1 to .*v1beta2: spec.failureDomains: cannot be represented$/,
    },
  ],
  [
    'an unexpected throw is an internal error, not a crash',
    [obj('a')],
    () => {
      throw new TypeError('x is undefined');
    },
    { ok: false, message: /: internal error: TypeError: x is undefined$/ },
  ],
  [
    'a converter answering the wrong version is refused',
    [obj('a')],
    (o) => ({ ...o }),
    {
      ok: false,
      field: 'apiVersion',
      message: /apiVersion: the converter answered/,
    },
  ],
  [
    'a converter renaming the object is refused',
    [obj('a')],
    (o, to) => ({
      ...o,
      apiVersion: to,
      metadata: { ...o.metadata, name: 'other' },
    }),
    { ok: false, field: 'metadata.name' },
  ],
  [
    'an object of another group is refused',
    [{ ...obj('a'), apiVersion: 'cluster.x-k8s.io/v1beta1' }],
    toV2,
    { ok: false, field: 'apiVersion' },
  ],
];
for (const [title, objects, converter, want] of cases) {
  test(`convertReview: ${title}`, () => {
    const outcome = convertReview({
      apiVersion: 'apiextensions.k8s.io/v1',
      uid: 'u',
      desiredAPIVersion: V2,
      objects,
    }, converter);
    assert.is(outcome.ok, want.ok);
    if (outcome.ok) {
      assert.equal(outcome.objects.map((o) => o.spec), want.specs);
    } else {
      if (want.field) assert.is(outcome.field, want.field);
      if (want.message) assert.match(outcome.message, want.message);
      assert.ok(
        outcome.message.startsWith('converting Metal3Cluster ns/'),
        outcome.message,
      );
    }
  });
}

test('the first failing object fails the review and is the one named', () => {
  const converter: Converter = (o, to) => {
    if (o.metadata?.name === 'b') throw new ConversionFailure('no', 'spec.x');
    return { ...o, apiVersion: to };
  };
  const outcome = convertReview({
    apiVersion: 'apiextensions.k8s.io/v1',
    uid: 'u',
    desiredAPIVersion: V2,
    objects: [obj('a'), obj('b'), obj('c')],
  }, converter);
  assert.ok(
    !outcome.ok &&
      outcome.message.startsWith('converting Metal3Cluster ns/b from'),
  );
});

test('reviewResponse: Success carries the objects, Failure carries the message and no objects, both echo uid and review version', () => {
  const r = { apiVersion: 'apiextensions.k8s.io/v1beta1', uid: 'u7' };
  assert.equal(reviewResponse(r, { ok: true, objects: [obj('a', V2)] }), {
    apiVersion: 'apiextensions.k8s.io/v1beta1',
    kind: 'ConversionReview',
    response: {
      uid: 'u7',
      convertedObjects: [obj('a', V2)],
      result: { status: 'Success' },
    },
  });
  const failed = reviewResponse(r, {
    ok: false,
    message: 'm',
    failed: { kind: 'K', namespace: 'n', name: 'a', from: V1 },
    field: undefined,
    error: 'E',
  });
  assert.equal((failed as { response: unknown }).response, {
    uid: 'u7',
    convertedObjects: [],
    result: { status: 'Failure', message: 'm' },
  });
});

test.run();
