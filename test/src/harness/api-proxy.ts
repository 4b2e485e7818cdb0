// A loopback fault-injection proxy in front of a real apiserver. The client speaks plain HTTP/1.1 to
// the proxy; the proxy forwards over HTTPS with the upstream's own credentials, so the upstream can
// change (a restarted apiserver on a new port, with a new token) while the client keeps one URL.
// Faults, each the way a bad network or an overloaded apiserver shows it to the client:
// - `block()`: every request is answered by resetting the connection (an unreachable apiserver);
// - `blackHole({ newConnections })`: the client's connections stay open and take bytes but nothing
//   comes back, no FIN, no reset (a dead middlebox, a half-open flow); open exchanges freeze where
//   they are. With `newConnections` the connections accepted later are black-holed too. Black-holed
//   connections stay dead after `clearBlackHole()`, as such flows do: the client must drop them;
// - `latency(min, max)`: every request waits a random delay in [min, max] ms before it is forwarded;
// - `dropEvery(ms)`: every client connection is reset at that period;
// - `stallWatches({ newWatches })`: open watches stop passing data but stay connected; with
//   `newWatches`, watches opened later get their headers and then nothing, until `resumeNewWatches()`;
// - `cutWatches()`: open watch responses are destroyed mid-stream;
// - `burst(code, count)`: the next `count` requests are answered with a Status of `code` (5xx, or
//   429 with Retry-After: 1) without reaching the apiserver;
// - `armGone(mode)`: the next watch request gets 410 Gone, as HTTP status or as a watch ERROR event.
// It records every request line and what it did with it, so tests can assert what the client asked.
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

export interface Upstream {
  readonly server: string;
  readonly caPem: string;
  readonly token?: string;
  readonly certPem?: string;
  readonly keyPem?: string;
}

export interface ProxiedRequest {
  readonly method: string;
  readonly path: string;
  readonly watch: boolean;
  /** What the proxy did with it. */
  readonly outcome: 'forwarded' | 'reset' | 'gone-status' | 'gone-event' | 'black-holed' | 'stalled' | `burst-${number}`;
}

/** One request in flight through the proxy. */
interface Exchange {
  readonly socket: Socket;
  readonly res: http.ServerResponse;
  readonly watch: boolean;
  upstream?: http.ClientRequest;
  upRes?: http.IncomingMessage;
  /** Nothing more goes to the client (black hole or stalled watch). */
  frozen: boolean;
}

const status = (code: number, reason: string, message: string) => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message,
  reason,
  code,
});

const GONE_STATUS = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'too old resource version: injected by the test proxy',
  reason: 'Expired',
  code: 410,
};

export class ApiProxy {
  upstream: Upstream;
  readonly requests: ProxiedRequest[] = [];
  readonly #server: http.Server;
  readonly #sockets = new Set<Socket>();
  readonly #dead = new WeakSet<Socket>();
  readonly #exchanges = new Set<Exchange>();
  #blocked = false;
  #gone: 'status' | 'event' | undefined;
  #blackHoleNew = false;
  #frozen = 0;
  #stallNewWatches = false;
  #latency: { min: number; max: number } | undefined;
  #drops: ReturnType<typeof setInterval> | undefined;
  #burst: { code: number; left: number } | undefined;

  private constructor(upstream: Upstream) {
    this.upstream = upstream;
    this.#server = http.createServer((req, res) => this.#handle(req, res));
    // The proxy itself never closes an idle client connection: only the faults end connections.
    this.#server.keepAliveTimeout = 0;
    this.#server.on('connection', (socket: Socket) => {
      this.#sockets.add(socket);
      if (this.#blackHoleNew) this.#dead.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
  }

  static async start(upstream: Upstream): Promise<ApiProxy> {
    const proxy = new ApiProxy(upstream);
    await new Promise<void>((resolve) => proxy.#server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** A kubeconfig naming the proxy, with no credentials of its own: the proxy adds the upstream's. */
  kubeconfig(): string {
    return [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{name: proxy, cluster: {server: "${this.url}"}}]`,
      'users: [{name: anonymous, user: {}}]',
      'contexts: [{name: proxy, context: {cluster: proxy, user: anonymous}}]',
      'current-context: proxy',
    ].join('\n');
  }

  get openWatches(): number {
    let n = 0;
    for (const e of this.#exchanges) if (e.watch) n++;
    return n;
  }

  /** Client connections open now. */
  get openConnections(): number {
    return this.#sockets.size;
  }

  /** Resets every request until `unblock()`; also cuts open watches. */
  block(): void {
    this.#blocked = true;
    this.cutWatches();
  }

  unblock(): void {
    this.#blocked = false;
  }

  blackHole(options: { newConnections: boolean }): void {
    for (const socket of this.#sockets) this.#dead.add(socket);
    this.#blackHoleNew = options.newConnections;
    for (const e of this.#exchanges) {
      if (!this.#dead.has(e.socket)) continue;
      this.#freeze(e);
      this.#frozen++;
    }
  }

  /** Requests in flight (open watches above all) that a black hole froze: they get no byte more, ever. */
  get frozen(): number {
    return this.#frozen;
  }

  /** Connections accepted from now on work again; black-holed ones stay dead. */
  clearBlackHole(): void {
    this.#blackHoleNew = false;
  }

  latency(minMs: number, maxMs = minMs): void {
    this.#latency = maxMs > 0 ? { min: minMs, max: maxMs } : undefined;
  }

  /** Resets every client connection each `periodMs`; 0 stops it. */
  dropEvery(periodMs: number): void {
    clearInterval(this.#drops);
    this.#drops = periodMs > 0 ? setInterval(() => this.dropConnections(), periodMs) : undefined;
  }

  dropConnections(): void {
    for (const socket of this.#sockets) socket.resetAndDestroy();
  }

  burst(code: number, count: number): void {
    this.#burst = count > 0 ? { code, left: count } : undefined;
  }

  cutWatches(): void {
    for (const e of this.#exchanges) {
      if (!e.watch) continue;
      e.upstream?.destroy();
      e.res.destroy();
    }
  }

  /** Open watches go quiet: nothing more reaches the client, and the connection is not closed. */
  stallWatches(options: { newWatches?: boolean } = {}): void {
    for (const e of this.#exchanges) if (e.watch) this.#freeze(e);
    if (options.newWatches) this.#stallNewWatches = true;
  }

  resumeNewWatches(): void {
    this.#stallNewWatches = false;
  }

  armGone(mode: 'status' | 'event'): void {
    this.#gone = mode;
  }

  async close(): Promise<void> {
    clearInterval(this.#drops);
    for (const e of this.#exchanges) e.upstream?.destroy();
    for (const socket of this.#sockets) socket.destroy();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #freeze(e: Exchange): void {
    e.frozen = true;
    e.upRes?.unpipe(e.res);
    e.upRes?.pause();
  }

  #handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const path = req.url ?? '/';
    const method = req.method ?? 'GET';
    const watch = new URL(path, 'http://x').searchParams.get('watch') === 'true';
    const record = (outcome: ProxiedRequest['outcome']) => this.requests.push({ method, path, watch, outcome });
    if (this.#dead.has(req.socket)) {
      // Read and ignore: the client sees its bytes accepted and nothing else, ever.
      record('black-holed');
      req.resume();
      return;
    }
    if (this.#blocked) {
      record('reset');
      req.socket.destroy();
      return;
    }
    if (this.#burst) {
      const { code } = this.#burst;
      if (--this.#burst.left <= 0) this.#burst = undefined;
      record(`burst-${code}`);
      const body = code === 429 ? status(429, 'TooManyRequests', 'injected by the test proxy') : status(code, 'InternalError', 'injected by the test proxy');
      res.writeHead(code, { 'Content-Type': 'application/json', ...(code === 429 ? { 'Retry-After': '1' } : {}) }).end(JSON.stringify(body));
      return;
    }
    if (watch && this.#gone) {
      const mode = this.#gone;
      this.#gone = undefined;
      record(mode === 'status' ? 'gone-status' : 'gone-event');
      if (mode === 'status') {
        res.writeHead(410, { 'Content-Type': 'application/json' }).end(JSON.stringify(GONE_STATUS));
      } else {
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ type: 'ERROR', object: GONE_STATUS }) + '\n');
      }
      return;
    }
    const stalled = watch && this.#stallNewWatches;
    record(stalled ? 'stalled' : 'forwarded');
    const exchange: Exchange = { socket: req.socket, res, watch, frozen: false };
    this.#exchanges.add(exchange);
    res.on('close', () => {
      this.#exchanges.delete(exchange);
      exchange.upRes?.destroy();
    });
    const delay = this.#latency ? this.#latency.min + Math.random() * (this.#latency.max - this.#latency.min) : 0;
    if (delay > 0) setTimeout(() => this.#forward(req, exchange, path, method, stalled), delay);
    else this.#forward(req, exchange, path, method, stalled);
  }

  #forward(req: http.IncomingMessage, e: Exchange, path: string, method: string, stalled: boolean): void {
    if (e.res.destroyed) return;
    const up = this.upstream;
    const headers: http.OutgoingHttpHeaders = { ...req.headers, host: new URL(up.server).host };
    delete headers['authorization'];
    delete headers['connection'];
    if (up.token) headers['authorization'] = `Bearer ${up.token}`;
    const upstream = https.request(new URL(path, up.server), {
      method,
      headers,
      ca: up.caPem,
      ...(up.certPem ? { cert: up.certPem } : {}),
      ...(up.keyPem ? { key: up.keyPem } : {}),
    });
    e.upstream = upstream;
    upstream.on('response', (upRes) => {
      e.upRes = upRes;
      if (e.frozen) return upRes.pause();
      e.res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      if (e.watch) e.res.flushHeaders();
      if (stalled) return this.#freeze(e);
      upRes.pipe(e.res);
      upRes.on('error', () => e.res.destroy());
    });
    // Upstream down (refused, reset): the client sees its connection reset, as with a dead apiserver.
    upstream.on('error', () => {
      if (!e.frozen) e.res.destroy();
    });
    req.pipe(upstream);
  }
}
