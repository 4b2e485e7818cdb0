import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError, ConflictError, ForbiddenError, RequestTimeoutError } from '@metal3-ts/generated';
import { StepError } from '@metal3-ts/shared/controller/step-error';
import { ClusterNotReachableError, InvalidKubeconfigSecretError, KubeconfigSecretNotFoundError } from '@metal3-ts/shared/workload/errors';
import { messageOf, nodeFailureKind, NodeProviderIDError } from './errors.ts';

const test = suite('Metal3Machine errors');
const cluster = { namespace: 'ns', name: 'c' };
const forbidden = new ForbiddenError(403, { kind: 'Status', code: 403, reason: 'Forbidden', message: 'nodes "n1" is forbidden' }, {
  verb: 'PATCH',
  path: '/api/v1/nodes/n1',
});
const refusedList = new ForbiddenError(403, { kind: 'Status', code: 403, reason: 'Forbidden', message: 'cannot list nodes' }, {
  verb: 'GET',
  path: '/api/v1/nodes',
});
const connectionRefused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });

test('issue 16, P-11: the Node step tells a workload cluster on its way up (a wait) from one that needs a person (an error with a Warning) and from any other error', () => {
  const rows: [string, unknown, ReturnType<typeof nodeFailureKind>][] = [
    ['a Forbidden Node patch', new NodeProviderIDError('n1', 'ns/c', forbidden), 'unusable'],
    ['a refused Node list', refusedList, 'unusable'],
    ['a kubeconfig that can never work', new InvalidKubeconfigSecretError(cluster, 'not valid YAML'), 'unusable'],
    ['no kubeconfig Secret yet', new KubeconfigSecretNotFoundError(cluster), 'wait'],
    ['the probe found no apiserver', new ClusterNotReachableError(cluster, connectionRefused), 'wait'],
    ['a request deadline', new RequestTimeoutError({ method: 'GET', path: '/api/v1/nodes', verb: 'list', resource: 'nodes' }, 30_000), 'wait'],
    ['a 503', new ApiError(503, undefined, { verb: 'GET', path: '/api/v1/nodes' }), 'wait'],
    ['a connection refused after the probe', connectionRefused, 'wait'],
    [
      'a Node patch that conflicts',
      new NodeProviderIDError('n1', 'ns/c', new ConflictError(409, undefined, { verb: 'PATCH', path: '/api/v1/nodes/n1' })),
      'error',
    ],
    ['a programming error', new TypeError('x is undefined'), 'error'],
  ];
  for (const [what, error, kind] of rows) assert.is(nodeFailureKind(error), kind, what);
});

test('messageOf: a step label is dropped, a refusal is told by verb and resource, a Node error names the Node', () => {
  assert.is(messageOf(new StepError('Metal3Machine ns/m', 'associate', new Error('No host'))), 'No host');
  assert.is(messageOf(new StepError('Metal3Machine ns/m', 'finalizer', refusedList)), 'list nodes refused: 403 Forbidden: cannot list nodes');
  assert.is(
    messageOf(new StepError('Metal3Machine ns/m', 'node', new NodeProviderIDError('n1', 'ns/c', forbidden))),
    'Node n1 of workload cluster ns/c: setting spec.providerID failed: patch nodes refused: 403 Forbidden: nodes "n1" is forbidden',
  );
});

test.run();
