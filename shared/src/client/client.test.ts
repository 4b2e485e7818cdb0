import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SecretResource } from '@metal3-ts/generated/core/v1';
import { Registry } from '../metrics/registry.ts';
import { newClient } from './client.ts';
import { codeLabel, RequestCounter } from './metrics.ts';

const test = suite('newClient');

let server: Server;
let base = '';
let tooMany = 0;
const userAgents: (string | undefined)[] = [];

test.before(async () => {
  server = createServer((req, res) => {
    userAgents.push(req.headers['user-agent']);
    if (tooMany > 0) {
      tooMany--;
      res.writeHead(429, { 'Retry-After': '0', 'Content-Type': 'application/json' });
      return res.end(JSON.stringify({ kind: 'Status', code: 429, reason: 'TooManyRequests' }));
    }
    if (req.url?.includes('/secrets/missing')) {
      res.writeHead(404, { 'Content-Type': 'application/json' });
      return res.end(JSON.stringify({ kind: 'Status', code: 404, reason: 'NotFound', message: 'secrets "missing" not found' }));
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ kind: 'SecretList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [] }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

test.after(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

test('every attempt is counted by verb, resource and code, and published as rest_client_* metrics', async () => {
  const registry = new Registry();
  const counter = new RequestCounter();
  const client = newClient({ server: base }, { registry, counter, userAgent: 'capm3-ts/test' });
  const host = new URL(base).host;
  try {
    tooMany = 2;
    await client.api(SecretResource, 'a').list();
    await client.api(SecretResource, 'a').get('missing').catch(() => undefined);
    assert.equal(counter.snapshot(), [
      { verb: 'get', resource: 'secrets', code: '404', count: 1 },
      { verb: 'list', resource: 'secrets', code: '200', count: 1 },
      { verb: 'list', resource: 'secrets', code: '429', count: 2 },
    ]);
    assert.is(counter.count({ verb: 'list' }), 3);
    assert.is(counter.count({ code: 429 }), 2);
    assert.is(counter.count(), 4);
    const text = registry.render();
    assert.ok(text.includes(`rest_client_requests_total{code="200",method="GET",host="${host}"} 1`), text);
    assert.ok(text.includes(`rest_client_requests_total{code="429",method="GET",host="${host}"} 2`));
    assert.ok(text.includes(`rest_client_request_duration_seconds_count{verb="GET",host="${host}"} 4`));
    assert.ok(userAgents.every((ua) => ua === 'capm3-ts/test'));
    counter.reset();
    assert.equal(counter.snapshot(), []);
  } finally {
    client.transport.close();
  }
});

test('a request that gets no response is counted with code <error>', async () => {
  const registry = new Registry();
  const counter = new RequestCounter();
  // Port 1 on loopback: nothing listens there, the connection is refused at once.
  const client = newClient({ server: 'http://127.0.0.1:1' }, { registry, counter });
  try {
    await client.api(SecretResource, 'a').list().then(
      () => assert.unreachable('listed'),
      (error: NodeJS.ErrnoException) => assert.is(error.code, 'ECONNREFUSED'),
    );
    assert.equal(counter.snapshot(), [{ verb: 'list', resource: 'secrets', code: '<error>', count: 1 }]);
    assert.ok(registry.render().includes('rest_client_requests_total{code="<error>",method="GET",host="127.0.0.1:1"} 1'));
    assert.is(codeLabel(0), '<error>');
  } finally {
    client.transport.close();
  }
});

test('qps/burst hold requests back; the wait shows in rest_client_rate_limiter_duration_seconds', async () => {
  const registry = new Registry();
  const client = newClient({ server: base }, { qps: 50, burst: 2, registry });
  const secrets = client.api(SecretResource, 'a');
  try {
    const started = performance.now();
    await Promise.all(Array.from({ length: 12 }, () => secrets.list()));
    const elapsed = performance.now() - started;
    // 2 at once, then 10 more at 20 ms apart.
    assert.ok(elapsed >= 190, `12 requests at qps 50 / burst 2 took only ${elapsed.toFixed(0)} ms`);
    assert.ok(registry.render().includes('rest_client_rate_limiter_duration_seconds_count{verb="GET",'));
  } finally {
    client.transport.close();
  }
});

test('without qps the client does not throttle: no hook stands before a request', async () => {
  const client = newClient({ server: base });
  const secrets = client.api(SecretResource, 'a');
  try {
    assert.is(client.transport.hooks.before, undefined);
    const lists = await Promise.all(Array.from({ length: 30 }, () => secrets.list()));
    assert.is(lists.length, 30);
  } finally {
    client.transport.close();
  }
});

test.run();
