// Request deadlines against loopback servers that stop answering the way a black-holed connection
// does (bytes accepted, nothing sent, no reset): at the request, in the middle of a body, and in the
// TLS handshake. The deadline fails the attempt with RequestTimeoutError, destroys its socket and the
// pool's idle ones, so the next request dials a fresh connection; a stream is bounded only until its
// headers arrive.
import { createServer, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { deadlineFor, defaultRequestDeadlines, jsonLines, RequestTimeoutError, Transport } from '../src/index.ts';

test('deadlineFor: per verb, default for the rest, per-request override, 0 for none', () => {
  const table: [verb: string, timeoutMs: number | undefined, expected: number | undefined][] = [
    ['get', undefined, 30_000],
    ['patch', undefined, 30_000],
    ['create', undefined, 30_000],
    ['delete', undefined, 30_000],
    ['watch', undefined, 30_000],
    ['list', undefined, 60_000],
    ['get', 500, 500],
    ['list', 0, undefined],
  ];
  for (const [verb, timeoutMs, expected] of table) {
    assert.is(deadlineFor({ verb, ...(timeoutMs === undefined ? {} : { timeoutMs }) }, defaultRequestDeadlines), expected, `${verb} ${timeoutMs}`);
  }
  assert.is(deadlineFor({ verb: 'get' }, { default: 0, list: 5 }), undefined, 'default 0 turns it off');
  assert.is(deadlineFor({ verb: 'list' }, { default: 0, list: 5 }), 5);
  assert.is(deadlineFor({ verb: 'get' }, { default: Number.NaN }), undefined, 'nonsense is no deadline, never an instant failure');
});

/** A loopback HTTP server whose mode decides how it answers; counts and tracks client connections. */
async function server() {
  const open = new Set<Socket>();
  const unanswered: Socket[] = [];
  let connections = 0;
  let mode: 'answer' | 'silent' | 'half-body' | 'stream-late' = 'answer';
  const held: ServerResponse[] = [];
  const srv = createServer((req, res) => {
    if (mode === 'answer') return res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}');
    held.push(res);
    unanswered.push(req.socket);
    if (mode === 'half-body') {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '100' });
      res.write('{"items":[');
    } else if (mode === 'stream-late') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.flushHeaders();
      setTimeout(() => res.end('{"type":"ADDED","object":{}}\n'), 400);
    }
  });
  srv.on('connection', (socket: Socket) => {
    connections++;
    open.add(socket);
    socket.on('close', () => open.delete(socket));
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`,
    open,
    /** Sockets of requests left unanswered. */
    unanswered,
    get connections() {
      return connections;
    },
    set mode(m: typeof mode) {
      mode = m;
    },
    async close() {
      for (const res of held) res.destroy();
      srv.closeAllConnections();
      await new Promise((r) => srv.close(r));
    },
  };
}

const get = (t: Transport, timeoutMs?: number) =>
  t.request<{ ok: boolean }>({ method: 'GET', path: '/api/v1/namespaces/x/configmaps/y', verb: 'get', resource: 'configmaps', ...(timeoutMs ? { timeoutMs } : {}) });

async function until(what: string, check: () => boolean): Promise<void> {
  const end = performance.now() + 5000;
  while (!check()) {
    if (performance.now() > end) assert.unreachable(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('a request the server never answers fails at its deadline; its socket and the idle ones are destroyed; the next request dials anew', async () => {
  const s = await server();
  const transport = Transport.fromConnection({ server: s.url });
  transport.deadlines = { default: 300 };
  try {
    // Two idle keep-alive sockets in the pool.
    await Promise.all([get(transport), get(transport)]);
    assert.is(s.connections, 2);
    s.mode = 'silent';
    const started = performance.now();
    const error = await get(transport).then(() => undefined, (e: unknown) => e);
    const tookMs = performance.now() - started;
    assert.instance(error, RequestTimeoutError);
    assert.is((error as RequestTimeoutError).timeoutMs, 300);
    assert.is((error as RequestTimeoutError).verb, 'get');
    assert.ok(tookMs >= 290 && tookMs < 2000, `failed after ${tookMs.toFixed(0)} ms`);
    // Deno's node:http keeps its own pool, which neither req.destroy() nor the agent reaches
    // reliably: there the caller is freed at the deadline, but which socket goes is up to Deno.
    const node = !('Deno' in globalThis);
    if (node) await until('the unanswered and the idle connections closed', () => s.unanswered.length === 1 && s.open.size === 0);
    const before = s.connections;
    s.mode = 'answer';
    assert.equal(await get(transport), { ok: true });
    if (node) assert.is(s.connections, before + 1, 'a fresh connection, no dead one reused');
  } finally {
    transport.close();
    await s.close();
  }
});

test('a body that stops halfway fails at the deadline with RequestTimeoutError (the deadline covers the whole exchange)', async () => {
  const s = await server();
  s.mode = 'half-body';
  const transport = Transport.fromConnection({ server: s.url });
  try {
    const error = await get(transport, 300).then(() => undefined, (e: unknown) => e);
    assert.instance(error, RequestTimeoutError);
    await until('the connection closed', () => s.open.size === 0);
    assert.is(s.unanswered.length, 1);
  } finally {
    transport.close();
    await s.close();
  }
});

test('a stream is bounded until its headers only: a watch line arriving after the deadline is delivered', async () => {
  const s = await server();
  s.mode = 'stream-late';
  const transport = Transport.fromConnection({ server: s.url });
  transport.deadlines = { default: 150 };
  try {
    const res = await transport.stream({ method: 'GET', path: '/api/v1/configmaps?watch=true', verb: 'watch', resource: 'configmaps' });
    const events: unknown[] = [];
    for await (const event of jsonLines(res.body)) events.push(event);
    assert.equal(events, [{ type: 'ADDED', object: {} }]);
  } finally {
    transport.close();
    await s.close();
  }
});

test('a TLS handshake that never completes (a black hole accepting the connection) fails at the deadline', async () => {
  const sockets: Socket[] = [];
  const tcp = createTcpServer((socket) => {
    sockets.push(socket);
    socket.on('data', () => {}); // swallow the ClientHello, answer nothing
    socket.on('error', () => {});
  });
  await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r));
  const transport = Transport.fromConnection({ server: `https://127.0.0.1:${(tcp.address() as AddressInfo).port}`, insecureSkipTLSVerify: true });
  try {
    const error = await get(transport, 300).then(() => undefined, (e: unknown) => e);
    assert.instance(error, RequestTimeoutError);
    await until('the client closed its end', () => sockets.length === 1 && sockets[0]!.readableEnded);
  } finally {
    transport.close();
    for (const socket of sockets) socket.destroy();
    await new Promise((r) => tcp.close(r));
  }
});

test.run();
