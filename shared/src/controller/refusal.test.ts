import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError, ConflictError, ForbiddenError, InvalidError } from '@metal3-ts/generated';
import { PatchError } from '../patch/patch-helper.ts';
import { describeRefusal, refusalOf, requestOf } from './refusal.ts';
import { runStep, StepError } from './step-error.ts';

const test = suite('refusals and step errors');

const NS = '/apis/infrastructure.cluster.x-k8s.io/v1beta1/namespaces/ns';
const cases: [string, string, string, string][] = [
  ['PATCH', `${NS}/metal3clusters/c/status`, 'patch', 'metal3clusters/status.infrastructure.cluster.x-k8s.io'],
  ['PATCH', `${NS}/metal3clusters/c`, 'patch', 'metal3clusters.infrastructure.cluster.x-k8s.io'],
  ['POST', '/api/v1/namespaces/ns/secrets', 'create', 'secrets'],
  ['GET', '/api/v1/namespaces/ns/secrets/s', 'get', 'secrets'],
  ['GET', '/apis/metal3.io/v1alpha1/baremetalhosts?limit=500', 'list', 'baremetalhosts.metal3.io'],
  ['GET', '/apis/metal3.io/v1alpha1/baremetalhosts?watch=true&resourceVersion=1', 'watch', 'baremetalhosts.metal3.io'],
  ['DELETE', '/apis/ipam.metal3.io/v1alpha1/namespaces/ns/ipclaims/x', 'delete', 'ipclaims.ipam.metal3.io'],
  ['PUT', '/apis/coordination.k8s.io/v1/namespaces/ns/leases/l', 'update', 'leases.coordination.k8s.io'],
  ['GET', '/api/v1/nodes', 'list', 'nodes'],
];
for (const [method, path, verb, resource] of cases) {
  test(`requestOf ${method} ${path}`, () => assert.equal(requestOf(method, path), { verb, resource }));
}

const forbidden = new ForbiddenError(
  403,
  { kind: 'Status', code: 403, reason: 'Forbidden', message: 'User "u" cannot patch resource "metal3clusters/status"' },
  {
    verb: 'PATCH',
    path: `${NS}/metal3clusters/c/status`,
  },
);

test('refusals are found through StepError, cause and PatchError; transient failures are not refusals', async () => {
  const step = await runStep('Metal3Cluster ns/c', 'status', () => Promise.reject(new PatchError([forbidden], 'patch failed'))).catch((e: unknown) => e);
  assert.instance(step, StepError);
  assert.is((step as StepError).step, 'status');
  assert.match((step as Error).message, /^Metal3Cluster ns\/c: status failed: /);
  const refusal = refusalOf(step);
  assert.equal(refusal, {
    verb: 'patch',
    resource: 'metal3clusters/status.infrastructure.cluster.x-k8s.io',
    code: 403,
    reason: 'Forbidden',
    message: 'User "u" cannot patch resource "metal3clusters/status"',
  });
  assert.is(
    describeRefusal(refusal!),
    'patch metal3clusters/status.infrastructure.cluster.x-k8s.io refused: 403 Forbidden: User "u" cannot patch resource "metal3clusters/status"',
  );
  assert.is(
    refusalOf(new InvalidError(422, { kind: 'Status', code: 422, reason: 'Invalid', message: 'bad' }, { verb: 'PATCH', path: `${NS}/x/y` }))?.code,
    422,
  );
  for (
    const transient of [
      new ConflictError(409, undefined, { verb: 'PATCH', path: '/x' }),
      new ApiError(503, undefined, { verb: 'GET', path: '/x' }),
      new Error('ECONNRESET'),
      'a string',
    ]
  ) {
    assert.is(refusalOf(transient), undefined);
  }
});

test('runStep passes a StepError through unchanged (nested steps keep the innermost label)', async () => {
  const inner = new StepError('Metal3Data ns/d', 'secret create', forbidden);
  const outer = await runStep('Metal3Data ns/d', 'status', () => Promise.reject(inner)).catch((e: unknown) => e);
  assert.is(outer, inner);
});

test.run();
