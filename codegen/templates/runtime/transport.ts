// HTTP to the apiserver over node:http(s), which Node and Deno both provide. Credentials come either
// from a plain Connection (server, CA, token or client certificate) or from any object with
// @kubernetes/client-node's KubeConfig surface (`applyToHTTPSOptions`), so exec plugins and OIDC work
// without this package importing client-node and its ~80 MB of generated models.
import * as http from 'node:http';
import * as https from 'node:https';
import { Buffer } from 'node:buffer';
import { apiError, type RequestContext } from './errors.ts';
import type { Status } from './meta.ts';

export interface Connection {
  /** Base URL, e.g. `https://127.0.0.1:6443`. */
  readonly server: string;
  /** PEM of the CA that signed the serving certificate. */
  readonly caPem?: string;
  readonly token?: string;
  readonly clientCertPem?: string;
  readonly clientKeyPem?: string;
  readonly insecureSkipTLSVerify?: boolean;
}

/** The part of @kubernetes/client-node's KubeConfig this transport uses. */
export interface KubeConfigLike {
  getCurrentCluster(): { readonly server: string } | null;
  applyToHTTPSOptions(options: https.RequestOptions): Promise<void>;
}

export interface HttpRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path with query string, e.g. `/api/v1/namespaces/default/secrets?limit=10`. */
  readonly path: string;
  readonly body?: unknown;
  readonly contentType?: string;
  readonly signal?: AbortSignal;
  /** Verb and resource for observers and metrics (`get`, `metal3machines`). */
  readonly verb: string;
  readonly resource: string;
  /** Fails the request when the connection is idle this long; unset means no client-side limit. */
  readonly timeoutMs?: number;
}

export interface RequestRecord {
  readonly verb: string;
  readonly resource: string;
  readonly method: string;
  readonly host: string;
  /** HTTP status, or 0 when no response arrived. */
  readonly code: number;
  readonly seconds: number;
}

/** Hooks for rate limiting (before) and metrics (after); both optional. */
export interface TransportHooks {
  before?(request: HttpRequest): Promise<void>;
  after?(record: RequestRecord): void;
}

export interface StreamResponse {
  readonly code: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: AsyncIterable<Buffer>;
  close(): void;
}

type Options = https.RequestOptions;

export class Transport {
  readonly server: URL;
  readonly #base: () => Promise<Options>;
  readonly #agent: http.Agent;
  hooks: TransportHooks = {};

  private constructor(server: string, base: () => Promise<Options>) {
    this.server = new URL(server);
    this.#base = base;
    const secure = this.server.protocol === 'https:';
    this.#agent = secure ? new https.Agent({ keepAlive: true, maxSockets: 64 }) : new http.Agent({ keepAlive: true, maxSockets: 64 });
  }

  static fromConnection(c: Connection): Transport {
    const options: Options = { headers: {} };
    if (c.caPem) options.ca = c.caPem;
    if (c.clientCertPem) options.cert = c.clientCertPem;
    if (c.clientKeyPem) options.key = c.clientKeyPem;
    if (c.insecureSkipTLSVerify) options.rejectUnauthorized = false;
    if (c.token) options.headers = { Authorization: `Bearer ${c.token}` };
    return new Transport(c.server, () => Promise.resolve({ ...options, headers: { ...options.headers } }));
  }

  static fromKubeConfig(kc: KubeConfigLike): Transport {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig has no current cluster');
    return new Transport(cluster.server, async () => {
      const options: Options = { headers: {} };
      await kc.applyToHTTPSOptions(options);
      // client-node sets its own agent; ours keeps connections alive across requests.
      delete options.agent;
      return options;
    });
  }

  /** Sends a request and returns the parsed JSON body; HTTP errors become typed ApiErrors. */
  async request<T>(request: HttpRequest): Promise<T> {
    const text = await this.requestText(request);
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  /** Sends a request and returns the body as text (e.g. `/readyz`); HTTP errors become ApiErrors. */
  async requestText(request: HttpRequest): Promise<string> {
    const res = await this.#send(request, false);
    const text = await readAll(res.body);
    if (res.code >= 400) throw errorFrom(res, text, request);
    return text;
  }

  /** Opens a streaming response (watch); errors before the stream starts are thrown as ApiErrors. */
  async stream(request: HttpRequest): Promise<StreamResponse> {
    const res = await this.#send(request, true);
    if (res.code >= 400) throw errorFrom(res, await readAll(res.body), request);
    return res;
  }

  close(): void {
    this.#agent.destroy();
  }

  async #send(request: HttpRequest, streaming: boolean): Promise<StreamResponse> {
    await this.hooks.before?.(request);
    const base = await this.#base();
    const url = new URL(request.path, this.server);
    const payload = request.body === undefined ? undefined : Buffer.from(JSON.stringify(request.body));
    const headers: Record<string, string | number> = {
      ...(base.headers as Record<string, string>),
      Accept: 'application/json',
    };
    if (payload) {
      headers['Content-Type'] = request.contentType ?? 'application/json';
      headers['Content-Length'] = payload.length;
    }
    const started = performance.now();
    const record = (code: number) =>
      this.hooks.after?.({
        verb: request.verb,
        resource: request.resource,
        method: request.method,
        host: this.server.host,
        code,
        seconds: (performance.now() - started) / 1000,
      });
    const lib = url.protocol === 'https:' ? https : http;
    return await new Promise<StreamResponse>((resolve, reject) => {
      const req = lib.request(
        url,
        { ...base, method: request.method, headers, agent: this.#agent, ...(request.signal ? { signal: request.signal } : {}) },
        (res) => {
          record(res.statusCode ?? 0);
          resolve({ code: res.statusCode ?? 0, headers: res.headers, body: res, close: () => res.destroy() });
        },
      );
      if (request.timeoutMs) {
        req.setTimeout(request.timeoutMs, () => req.destroy(new Error(`${request.method} ${url.pathname}: timed out after ${request.timeoutMs} ms`)));
      }
      req.on('error', (error) => {
        record(0);
        reject(error);
      });
      if (streaming) req.setNoDelay(true);
      req.end(payload);
    });
  }
}

async function readAll(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** Splits a streamed body into newline-delimited JSON values: the watch wire format. */
export async function* jsonLines<T>(body: AsyncIterable<Buffer>): AsyncGenerator<T> {
  let buffered = '';
  for await (const chunk of body) {
    buffered += chunk.toString('utf8');
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      if (line !== '') yield JSON.parse(line) as T;
    }
  }
}

function errorFrom(res: StreamResponse, text: string, request: HttpRequest) {
  let status: Status | undefined;
  try {
    const parsed = JSON.parse(text) as Status;
    if (parsed && parsed.kind === 'Status') status = parsed;
  } catch {
    // Not JSON (a proxy's HTML page, say): keep the text as the message.
  }
  // Retry-After is a header; keep it where TooManyRequestsError looks, in the Status details.
  const retryAfter = Number(res.headers['retry-after']);
  if (Number.isFinite(retryAfter) && status && status.details?.retryAfterSeconds === undefined) {
    status = { ...status, details: { ...status.details, retryAfterSeconds: retryAfter } };
  }
  const context: RequestContext = { verb: request.method, path: request.path };
  return apiError(res.code, status, context, text.slice(0, 500));
}
