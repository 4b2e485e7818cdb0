// Wire details of the transport that the real apiserver rarely shows on demand: 429 with
// Retry-After (waited out, or surfaced once retries run out), a rotating token file, and watch lines
// split across network chunks.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Buffer } from 'node:buffer';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { jsonLines, TooManyRequestsError, Transport, UnauthorizedError, type Connection, type RequestRecord } from '../src/index.ts';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** Runs `fn` against a loopback HTTP server answering with `handler`; closes both afterwards. */
async function withServer(handler: Handler, fn: (c: Connection) => Promise<void>, extra: Partial<Connection> = {}): Promise<void> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => handler(req, res, body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    await fn({ server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, ...extra });
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

const tooMany = (res: ServerResponse, headers: Record<string, string>, retryAfterSeconds?: number) => {
  res.writeHead(429, { 'Content-Type': 'application/json', ...headers });
  const details = retryAfterSeconds === undefined ? {} : { details: { retryAfterSeconds } };
  res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'TooManyRequests', code: 429, message: 'slow down', ...details }));
};
const ok = (res: ServerResponse, body: unknown) => {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
};

test('a 429 becomes TooManyRequestsError carrying Retry-After once retries are used up', async () => {
  let calls = 0;
  await withServer(
    (_req, res) => {
      calls++;
      tooMany(res, { 'Retry-After': '3' });
    },
    async (c) => {
      const transport = Transport.fromConnection(c);
      transport.retry = { maxRetries: 0, maxDelayMs: 10_000 };
      try {
        await transport.request({ method: 'GET', path: '/api/v1/secrets', verb: 'list', resource: 'secrets' });
        assert.unreachable('no error');
      } catch (error) {
        assert.instance(error, TooManyRequestsError);
        assert.is((error as TooManyRequestsError).retryAfterSeconds, 3);
        assert.is((error as TooManyRequestsError).serverMessage, 'slow down');
      } finally {
        transport.close();
      }
    },
  );
  assert.is(calls, 1);
});

test('a POST answered 429 with Retry-After is sent again after the delay, with its body, and succeeds', async () => {
  const bodies: string[] = [];
  const records: RequestRecord[] = [];
  const retries: number[] = [];
  await withServer(
    (_req, res, body) => {
      bodies.push(body);
      if (bodies.length < 3) return tooMany(res, { 'Retry-After': '0' });
      ok(res, { kind: 'Secret', metadata: { name: 's' } });
    },
    async (c) => {
      const transport = Transport.fromConnection(c);
      transport.hooks = { after: (r) => records.push(r), retrying: (_r, attempt) => retries.push(attempt) };
      try {
        const created = await transport.request<{ metadata: { name: string } }>({
          method: 'POST',
          path: '/api/v1/namespaces/a/secrets',
          body: { metadata: { name: 's' } },
          verb: 'create',
          resource: 'secrets',
        });
        assert.is(created.metadata.name, 's');
      } finally {
        transport.close();
      }
    },
  );
  assert.equal(bodies, Array(3).fill('{"metadata":{"name":"s"}}'));
  assert.equal(records.map((r) => r.code), [429, 429, 200]);
  assert.equal(retries, [1, 2]);
});

test('the wait follows Status details.retryAfterSeconds when the header is missing, capped by maxDelayMs', async () => {
  let calls = 0;
  const delays: number[] = [];
  const started = performance.now();
  await withServer(
    (_req, res) => {
      if (++calls === 1) return tooMany(res, {}, 30);
      ok(res, { kind: 'SecretList', items: [] });
    },
    async (c) => {
      const transport = Transport.fromConnection(c);
      transport.retry = { maxRetries: 10, maxDelayMs: 200 };
      transport.hooks = { retrying: (_r, _a, ms) => delays.push(ms) };
      try {
        await transport.request({ method: 'GET', path: '/api/v1/secrets', verb: 'list', resource: 'secrets' });
      } finally {
        transport.close();
      }
    },
  );
  const elapsed = performance.now() - started;
  assert.equal(delays, [200]);
  assert.ok(elapsed >= 190 && elapsed < 5000, `took ${elapsed} ms`);
});

test('a 429 without any delay hint is handed to the caller at once', async () => {
  let calls = 0;
  await withServer(
    (_req, res) => {
      calls++;
      tooMany(res, {});
    },
    async (c) => {
      const transport = Transport.fromConnection(c);
      try {
        await transport.request({ method: 'GET', path: '/x', verb: 'get', resource: 'x' }).then(
          () => assert.unreachable('no error'),
          (error: unknown) => assert.instance(error, TooManyRequestsError),
        );
      } finally {
        transport.close();
      }
    },
  );
  assert.is(calls, 1);
});

test('retries stop after maxRetries and the last 429 is thrown', async () => {
  let calls = 0;
  await withServer(
    (_req, res) => {
      calls++;
      tooMany(res, { 'Retry-After': '1' });
    },
    async (c) => {
      const transport = Transport.fromConnection(c);
      transport.retry = { maxRetries: 3, maxDelayMs: 1 };
      try {
        await transport.requestText({ method: 'GET', path: '/x', verb: 'get', resource: 'x' }).then(
          () => assert.unreachable('no error'),
          (error: unknown) => assert.instance(error, TooManyRequestsError),
        );
      } finally {
        transport.close();
      }
    },
  );
  assert.is(calls, 4);
});

test('aborting the request cuts a Retry-After wait short', async () => {
  await withServer(
    (_req, res) => tooMany(res, { 'Retry-After': '5' }),
    async (c) => {
      const transport = Transport.fromConnection(c);
      const controller = new AbortController();
      const started = performance.now();
      setTimeout(() => controller.abort(new Error('stop')), 50);
      try {
        await transport.request({ method: 'GET', path: '/x', verb: 'get', resource: 'x', signal: controller.signal });
        assert.unreachable('no error');
      } catch (error) {
        assert.is((error as Error).message, 'stop');
        assert.ok(performance.now() - started < 2000);
      } finally {
        transport.close();
      }
    },
  );
});

test('a token file supplies the bearer token: cached between reads, re-read after a 401 and once the refresh period passes', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'transport-token-'));
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, 'first\n');
  const seen: (string | undefined)[] = [];
  try {
    await withServer(
      (req, res) => {
        seen.push(req.headers.authorization);
        if (req.headers.authorization === 'Bearer stale') {
          res.writeHead(401, { 'Content-Type': 'application/json' });
          return res.end(JSON.stringify({ kind: 'Status', code: 401, reason: 'Unauthorized', message: 'Unauthorized' }));
        }
        ok(res, {});
      },
      async (c) => {
        const transport = Transport.fromConnection(c, { tokenFileRefreshMs: 60_000 });
        const get = () => transport.request({ method: 'GET', path: '/version', verb: 'get', resource: 'version' });
        try {
          await get();
          writeFileSync(tokenFile, 'stale');
          await get(); // still cached
          const fresh = Transport.fromConnection(c, { tokenFileRefreshMs: 60_000 });
          await fresh.request({ method: 'GET', path: '/version', verb: 'get', resource: 'version' }).catch((e: unknown) => assert.instance(e, UnauthorizedError));
          writeFileSync(tokenFile, 'second');
          await fresh.request({ method: 'GET', path: '/version', verb: 'get', resource: 'version' });
          fresh.close();
          const always = Transport.fromConnection(c, { tokenFileRefreshMs: 0 });
          writeFileSync(tokenFile, 'third');
          await always.request({ method: 'GET', path: '/version', verb: 'get', resource: 'version' });
          always.close();
        } finally {
          transport.close();
        }
      },
      { tokenFile, token: 'ignored' },
    );
    assert.equal(seen, ['Bearer first', 'Bearer first', 'Bearer stale', 'Bearer second', 'Bearer third']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('aborting an open stream records the request once, with its status', async () => {
  const records: RequestRecord[] = [];
  await withServer(
    (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"type":"ADDED","object":{}}\n');
    },
    async (c) => {
      const transport = Transport.fromConnection(c);
      transport.hooks = { after: (r) => records.push(r) };
      const controller = new AbortController();
      try {
        const res = await transport.stream({ method: 'GET', path: '/w?watch=1', verb: 'watch', resource: 'w', signal: controller.signal });
        try {
          for await (const _ of jsonLines(res.body)) controller.abort();
        } catch {
          // The aborted body ends with an AbortError, as a watch closed by its signal does.
        }
        await new Promise((r) => setTimeout(r, 20));
      } finally {
        transport.close();
      }
    },
  );
  assert.equal(records.map((r) => [r.verb, r.code]), [['watch', 200]]);
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
