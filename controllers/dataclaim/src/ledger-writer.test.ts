import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { apiError, Client, type HttpRequest, type Transport } from '@metal3-ts/generated';
import { TemplateLedgerWriter } from './ledger-writer.ts';

const test = suite('TemplateLedgerWriter: one template write per round trip, whatever the number of claims');

function recordingClient(answer: (request: HttpRequest) => unknown = () => ({})) {
  const requests: HttpRequest[] = [];
  const transport = {
    async request<T>(request: HttpRequest): Promise<T> {
      requests.push(request);
      await new Promise((r) => setTimeout(r, 5));
      return answer(request) as T;
    },
  };
  return { client: new Client(transport as unknown as Transport), requests };
}

const now = () => new Date('2026-01-01T00:00:00Z');

test('DT-14: entries written together while a write is in flight; each caller waits for its own', async () => {
  const { client, requests } = recordingClient();
  const writer = new TemplateLedgerWriter(client, now);
  const first = Array.from({ length: 10 }, (_, i) => writer.write('ns', 'tmpl', `c${i}`, { index: i, dataName: `tmpl-${i}` }));
  assert.equal(writer.pending('ns', 'tmpl', 'c3'), { index: 3, dataName: 'tmpl-3' });
  await Promise.all(first);
  assert.is(requests.length, 1, 'ten claims, one write');
  assert.is(requests[0]!.path, '/apis/infrastructure.cluster.x-k8s.io/v1beta1/namespaces/ns/metal3datatemplates/tmpl/status');
  const body = requests[0]!.body as { status: { indexes: Record<string, number>; dataNames: Record<string, string>; lastUpdated: string } };
  assert.is(Object.keys(body.status.indexes).length, 10);
  assert.is(body.status.dataNames.c9, 'tmpl-9');
  assert.is(body.status.lastUpdated, '2026-01-01T00:00:00Z');
  assert.is(writer.pending('ns', 'tmpl', 'c3'), undefined);
});

test('entries that arrive during a write go in the next one; other templates are written separately', async () => {
  const { client, requests } = recordingClient();
  const writer = new TemplateLedgerWriter(client, now);
  const a = writer.write('ns', 'tmpl', 'a', { index: 0, dataName: 'tmpl-0' });
  await new Promise((r) => setTimeout(r, 2));
  const b = writer.write('ns', 'tmpl', 'b', { index: 1, dataName: 'tmpl-1' });
  const c = writer.write('ns', 'tmpl', 'c', null);
  const other = writer.write('ns', 'other', 'x', { index: 0, dataName: 'other-0' });
  await Promise.all([a, b, c, other]);
  const paths = requests.map((r) => r.path.split('/').at(-2));
  assert.equal(paths.sort(), ['other', 'tmpl', 'tmpl']);
  const second = requests.filter((r) => r.path.includes('/tmpl/'))[1]!.body as { status: { indexes: Record<string, number | null> } };
  assert.equal(second.status.indexes, { b: 1, c: null });
});

test('a template that is gone is not an error; other failures reject every caller of that write', async () => {
  const gone = recordingClient(() => {
    throw apiError(404, undefined, { verb: 'patch', path: '/x' });
  });
  await new TemplateLedgerWriter(gone.client, now).write('ns', 'tmpl', 'a', null);
  const failing = recordingClient(() => {
    throw apiError(500, undefined, { verb: 'patch', path: '/x' });
  });
  const writer = new TemplateLedgerWriter(failing.client, now);
  const results = await Promise.allSettled([writer.write('ns', 't', 'a', null), writer.write('ns', 't', 'b', null)]);
  assert.equal(results.map((r) => r.status), ['rejected', 'rejected']);
});

test.run();
