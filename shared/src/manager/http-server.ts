// The manager's small HTTP servers (metrics, health probes) over node:http, which Node and Deno both
// provide. Bind addresses use Go's `host:port` form as the controller-runtime flags do: `:8080` is
// every interface, `127.0.0.1:0` an ephemeral port, and `0` turns the server off.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../log/logger.ts';

export interface BindAddress {
  /** Undefined: every interface. */
  readonly host: string | undefined;
  readonly port: number;
}

export class BindAddressError extends Error {
  override name = 'BindAddressError';
}

/** Parses `host:port`, `:port` or `[v6]:port`; `0` or '' means disabled (undefined). */
export function parseBindAddress(text: string): BindAddress | undefined {
  if (text === '0' || text === '') return undefined;
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text);
  const port = Number(match?.[3]);
  if (!match || port > 65535) throw new BindAddressError(`bind address "${text}": expected host:port, :port or 0 (disabled)`);
  const host = match[1] ?? match[2];
  return { host: host === '' ? undefined : host, port };
}

export type Route = (request: { path: string; query: URLSearchParams }) => Promise<RouteResponse | undefined>;

export interface RouteResponse {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

export interface RunningServer {
  /** `host:port` actually bound (the real port when 0 was asked for). */
  readonly address: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Listens on `bind` and answers GET/HEAD with the first route that accepts the path (404
 * otherwise). Rejects when the address cannot be bound (a port in use is a startup error).
 */
export async function startHttpServer(bind: BindAddress, routes: readonly Route[], log: Logger): Promise<RunningServer> {
  const server = http.createServer((req, res) => {
    void handle(req, res, routes, log);
  });
  // Probes are short requests; do not let a keep-alive socket hold shutdown up.
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: bind.port, ...(bind.host !== undefined ? { host: bind.host } : {}) }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const info = server.address() as AddressInfo;
  const host = info.family === 'IPv6' || info.address.includes(':') ? `[${info.address}]` : info.address;
  return {
    address: `${host}:${info.port}`,
    port: info.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections?.();
      }),
  };
}

async function handle(req: http.IncomingMessage, res: http.ServerResponse, routes: readonly Route[], log: Logger): Promise<void> {
  try {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(res, { status: 405, contentType: 'text/plain; charset=utf-8', body: 'method not allowed\n' }, false);
      return;
    }
    const url = new URL(req.url ?? '/', 'http://localhost');
    for (const route of routes) {
      const response = await route({ path: url.pathname, query: url.searchParams });
      if (response) {
        send(res, response, req.method === 'HEAD');
        return;
      }
    }
    send(res, { status: 404, contentType: 'text/plain; charset=utf-8', body: '404 page not found\n' }, false);
  } catch (error) {
    log.error('http handler failed', { path: req.url, error });
    if (!res.headersSent) send(res, { status: 500, contentType: 'text/plain; charset=utf-8', body: 'internal error\n' }, false);
  }
}

function send(res: http.ServerResponse, response: RouteResponse, headOnly: boolean): void {
  const body = new TextEncoder().encode(response.body);
  res.writeHead(response.status, {
    'Content-Type': response.contentType,
    'Content-Length': body.byteLength,
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(headOnly ? undefined : body);
}
