// A loopback HTTP proxy in front of a real apiserver, for fault injection in informer tests. The
// client speaks plain HTTP to the proxy; the proxy forwards over HTTPS with the upstream's own
// credentials, so the upstream can change (a restarted apiserver on a new port, with a new token)
// while the client keeps one URL. Faults:
// - `block()`: every request is answered by resetting the connection (an unreachable apiserver);
// - `cutWatches()`: open watch responses are destroyed mid-stream;
// - `stallWatches()`: open watches stop passing data but stay connected (a half-open connection);
// - `armGone(mode)`: the next watch request gets 410 Gone, as HTTP status or as a watch ERROR event.
// It records every request line, so tests can assert what the client asked for.
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';

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
  readonly outcome: 'forwarded' | 'reset' | 'gone-status' | 'gone-event';
}

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
  readonly #watches = new Set<{ res: http.ServerResponse; upstream: http.ClientRequest; upRes?: http.IncomingMessage }>();
  #blocked = false;
  #gone: 'status' | 'event' | undefined;

  private constructor(upstream: Upstream) {
    this.upstream = upstream;
    this.#server = http.createServer((req, res) => this.#handle(req, res));
  }

  static async start(upstream: Upstream): Promise<ApiProxy> {
    const proxy = new ApiProxy(upstream);
    await new Promise<void>((resolve) => proxy.#server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  get openWatches(): number {
    return this.#watches.size;
  }

  /** Resets every request until `unblock()`; also cuts open watches. */
  block(): void {
    this.#blocked = true;
    this.cutWatches();
  }

  unblock(): void {
    this.#blocked = false;
  }

  cutWatches(): void {
    for (const w of this.#watches) {
      w.upstream.destroy();
      w.res.destroy();
    }
    this.#watches.clear();
  }

  /** Open watches go quiet: nothing more reaches the client, and the connection is not closed. */
  stallWatches(): void {
    for (const w of this.#watches) {
      w.upRes?.unpipe(w.res);
      w.upRes?.pause();
    }
  }

  armGone(mode: 'status' | 'event'): void {
    this.#gone = mode;
  }

  async close(): Promise<void> {
    this.cutWatches();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const path = req.url ?? '/';
    const method = req.method ?? 'GET';
    const watch = new URL(path, 'http://x').searchParams.get('watch') === 'true';
    const record = (outcome: ProxiedRequest['outcome']) => this.requests.push({ method, path, watch, outcome });
    if (this.#blocked) {
      record('reset');
      req.socket.destroy();
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
    record('forwarded');
    this.#forward(req, res, path, method, watch);
  }

  #forward(req: http.IncomingMessage, res: http.ServerResponse, path: string, method: string, watch: boolean): void {
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
    // Tracked from the start, so a cut also catches a watch whose response is still on its way.
    const entry: { res: http.ServerResponse; upstream: http.ClientRequest; upRes?: http.IncomingMessage } = { res, upstream };
    if (watch) this.#watches.add(entry);
    upstream.on('response', (upRes) => {
      entry.upRes = upRes;
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      if (watch) res.flushHeaders();
      upRes.pipe(res);
      upRes.on('error', () => res.destroy());
      res.on('close', () => {
        this.#watches.delete(entry);
        upRes.destroy();
      });
    });
    // Upstream down (refused, reset): the client sees its connection reset, as with a dead apiserver.
    upstream.on('error', () => {
      this.#watches.delete(entry);
      res.destroy();
    });
    req.pipe(upstream);
  }
}
