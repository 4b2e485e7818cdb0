// Wire details of the transport that the real apiserver rarely shows on demand: a 429 with
// Retry-After, and watch lines split across network chunks.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Buffer } from 'node:buffer';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { jsonLines, TooManyRequestsError, Transport } from '../src/index.ts';

test('a 429 becomes TooManyRequestsError carrying the Retry-After header', async () => {
  const server = createServer((_req, res) => {
    res.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': '3' });
    res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'TooManyRequests', code: 429, message: 'slow down' }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const transport = Transport.fromConnection({ server: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  try {
    await transport.request({ method: 'GET', path: '/api/v1/secrets', verb: 'list', resource: 'secrets' });
    assert.unreachable('no error');
  } catch (error) {
    assert.instance(error, TooManyRequestsError);
    assert.is((error as TooManyRequestsError).retryAfterSeconds, 3);
    assert.is((error as TooManyRequestsError).serverMessage, 'slow down');
  } finally {
    transport.close();
    await new Promise((r) => server.close(r));
  }
});

test('jsonLines yields whole events even when lines span chunks', async () => {
  async function* chunks() {
    yield Buffer.from('{"type":"ADDED","object":{"a"');
    yield Buffer.from(':1}}\n{"type":"DELE');
    yield Buffer.from('TED","object":{}}\n\n');
  }
  const events: unknown[] = [];
  for await (const e of jsonLines(chunks())) events.push(e);
  assert.equal(events, [{ type: 'ADDED', object: { a: 1 } }, { type: 'DELETED', object: {} }]);
});

test.run();
