// S-10, CT-29: the Cluster API version read, from what discovery says the apiserver serves. The
// answers below are the APIGroup documents a real apiserver gives (test/src/capi/read.test.ts asks
// real ones: Cluster API v1.10.10 and v1.13.5).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError, ForbiddenError, type HttpRequest, NotFoundError, type Transport } from '@metal3-ts/generated';
import { realClock } from '../clock/clock.ts';
import { chooseClusterApiVersion, ClusterApiNotServedError, discoverClusterApiVersion } from './version.ts';

test('S-10 v1beta2 wherever it is served, v1beta1 where it is the only one, nothing otherwise', () => {
  const rows: [string[], string | undefined][] = [
    [['v1beta2', 'v1beta1'], 'v1beta2'], // Cluster API v1.11 … v1.15
    [['v1beta2'], 'v1beta2'], // v1.16 and later (CT-29)
    [['v1beta1'], 'v1beta1'], // v1.10
    [['v1alpha4'], undefined],
    [[], undefined],
  ];
  for (const [served, want] of rows) assert.is(chooseClusterApiVersion(served), want, served.join(','));
});

/** Answers each discovery request with the next of `answers` (an APIGroup, or an error to throw). */
function discovery(answers: (unknown | Error)[]): { transport: Transport; paths: string[] } {
  const paths: string[] = [];
  const transport = {
    request: (request: HttpRequest) => {
      paths.push(request.path);
      const answer = answers.shift();
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    },
  } as unknown as Transport;
  return { transport, paths };
}

const group = (...versions: string[]) => ({
  kind: 'APIGroup',
  name: 'cluster.x-k8s.io',
  versions: versions.map((version) => ({ groupVersion: `cluster.x-k8s.io/${version}`, version })),
});
const context = { verb: 'get', path: '/apis/cluster.x-k8s.io' };
const notFound = new NotFoundError(404, { reason: 'NotFound', message: 'the server could not find the requested resource' }, context);

test('S-10 discovery asks /apis/cluster.x-k8s.io once when the group is served', async () => {
  const { transport, paths } = discovery([group('v1beta2', 'v1beta1')]);
  assert.is(await discoverClusterApiVersion(transport, { clock: realClock }), 'v1beta2');
  assert.equal(paths, ['/apis/cluster.x-k8s.io']);
});

test('S-10 a group not served yet is asked again; still missing after the attempts, the error says what to install', async () => {
  const later = discovery([notFound, group('v1beta1')]);
  assert.is(await discoverClusterApiVersion(later.transport, { clock: realClock, attempts: 3, intervalMs: 1 }), 'v1beta1');
  assert.is(later.paths.length, 2);

  const never = discovery([notFound, group('v1alpha4')]);
  const error = await discoverClusterApiVersion(never.transport, { clock: realClock, attempts: 2, intervalMs: 1 }).catch((e: unknown) => e);
  assert.instance(error, ClusterApiNotServedError);
  assert.is(
    (error as Error).message,
    "the apiserver serves only v1alpha4 of cluster.x-k8s.io (want v1beta2 or v1beta1): install Cluster API's core provider first",
  );
});

test("S-10 any other discovery failure is not retried here: it is the caller's to report", async () => {
  const { transport } = discovery([new ForbiddenError(403, { reason: 'Forbidden', message: 'forbidden' }, context)]);
  const error = await discoverClusterApiVersion(transport, { clock: realClock, attempts: 3, intervalMs: 1 }).catch((e: unknown) => e);
  assert.instance(error, ApiError);
  assert.is((error as ApiError).code, 403);
});

test.run();
