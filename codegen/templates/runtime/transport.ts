// HTTP to the apiserver over node:http(s), which Node and Deno both provide. Credentials come either
// from a plain Connection (server, CA, token or token file, client certificate) or from any object
// with @kubernetes/client-node's KubeConfig surface (`applyToHTTPSOptions`), so exec plugins and OIDC
// work without this package importing client-node and its ~80 MB of generated models.
//
// A 429 Too Many Requests is waited out here, as client-go does: the apiserver (priority and
// fairness, or storage still initialising) says how long in Retry-After, and the request was not
// processed, so even a POST is safe to send again.
//
// Every attempt has a deadline (per verb, see RequestDeadlines), because HTTP/1.1 keep-alive has no
// health check of its own: a connection that a middlebox black-holes (no data, no reset) would hold a
// request for ever, and client-go's HTTP/2 pings have no equivalent here. At the deadline the request
// fails with RequestTimeoutError and its socket is destroyed, never returned to the pool; the pool's
// idle sockets are destroyed too (they share the path that just went dead; reopening costs one
// handshake), so the retry dials afresh instead of trying each dead socket in turn.
import * as http from 'node:http';
import * as https from 'node:https';
import { readFile } from 'node:fs/promises';
import { Buffer } from 'node:buffer';
import { deadlineFor, defaultRequestDeadlines, type RequestDeadlines, RequestTimeoutError } from './deadline.ts';
import { apiError, type RequestContext } from './errors.ts';
import type { Status } from './meta.ts';

export interface Connection {
  /** Base URL, e.g. `https://127.0.0.1:6443`. */
  readonly server: string;
  /** PEM of the CA that signed the serving certificate. */
  readonly caPem?: string;
  readonly token?: string;
  /**
   * A file holding the bearer token, re-read every minute (and after a 401): bound ServiceAccount
   * tokens rotate on disk. The last value read wins over `token`, which serves until the first read.
   */
  readonly tokenFile?: string;
  readonly clientCertPem?: string;
  readonly clientKeyPem?: string;
  readonly insecureSkipTLSVerify?: boolean;
  /** Name to verify the serving certificate against (and send as SNI) when it differs from the URL's host. */
  readonly tlsServerName?: string;
  /** User-Agent header, e.g. `capm3-ts/0.1.0`; it shows in the apiserver's audit log. */
  readonly userAgent?: string;
}

export interface ConnectionOptions {
  /** How long a token read from `tokenFile` is used before the file is read again (default 60 s). */
  readonly tokenFileRefreshMs?: number;
}

/** How the transport waits out 429 Too Many Requests. */
export interface RetryPolicy {
  /** Retries after the first attempt (client-go: 10); 0 hands the 429 to the caller at once. */
  readonly maxRetries: number;
  /** Cap on one wait, whatever Retry-After asks for. */
  readonly maxDelayMs: number;
}

export const defaultRetryPolicy: RetryPolicy = { maxRetries: 10, maxDelayMs: 10_000 };

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
  /** The media type asked for; `application/json` unless set (a metadata-only list or watch sets it). */
  readonly accept?: string;
  readonly signal?: AbortSignal;
  /** Verb and resource for observers and metrics (`get`, `metal3machines`). */
  readonly verb: string;
  readonly resource: string;
  /**
   * This request's deadline in ms, instead of the transport's per-verb one; 0 means none. It covers
   * the whole exchange of request(), and a stream() until its response headers arrive.
   */
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

/** Hooks for rate limiting (before, called once per attempt) and metrics (after); all optional. */
export interface TransportHooks {
  before?(request: HttpRequest): Promise<void>;
  after?(record: RequestRecord): void;
  /** A 429 is about to be retried after `delayMs`; `attempt` counts from 1. */
  retrying?(request: HttpRequest, attempt: number, delayMs: number): void;
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
  readonly #unauthorized: () => void;
  readonly #agent: http.Agent;
  hooks: TransportHooks = {};
  retry: RetryPolicy = defaultRetryPolicy;
  deadlines: RequestDeadlines = defaultRequestDeadlines;

  private constructor(server: string, base: () => Promise<Options>, unauthorized: () => void = () => {}) {
    this.server = new URL(server);
    this.#base = base;
    this.#unauthorized = unauthorized;
    const secure = this.server.protocol === 'https:';
    this.#agent = secure ? new https.Agent({ keepAlive: true, maxSockets: 64 }) : new http.Agent({ keepAlive: true, maxSockets: 64 });
  }

  static fromConnection(c: Connection, connectionOptions: ConnectionOptions = {}): Transport {
    const options: Options = {};
    if (c.caPem) options.ca = c.caPem;
    if (c.clientCertPem) options.cert = c.clientCertPem;
    if (c.clientKeyPem) options.key = c.clientKeyPem;
    if (c.insecureSkipTLSVerify) options.rejectUnauthorized = false;
    if (c.tlsServerName) options.servername = c.tlsServerName;
    const token = c.tokenFile ? new FileToken(c.tokenFile, c.token, connectionOptions.tokenFileRefreshMs ?? 60_000) : undefined;
    return new Transport(
      c.server,
      async () => {
        const headers: Record<string, string> = {};
        const bearer = token ? await token.get() : c.token;
        if (bearer) headers['Authorization'] = `Bearer ${bearer}`;
        if (c.userAgent) headers['User-Agent'] = c.userAgent;
        return { ...options, headers };
      },
      () => token?.expire(),
    );
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
    if (res.code >= 400) throw this.#error(res, text, request);
    return text;
  }

  /** Opens a streaming response (watch); errors before the stream starts are thrown as ApiErrors. */
  async stream(request: HttpRequest): Promise<StreamResponse> {
    const res = await this.#send(request, true);
    if (res.code >= 400) throw this.#error(res, await readAll(res.body), request);
    return res;
  }

  close(): void {
    this.#agent.destroy();
  }

  /** Destroys the pool's idle keep-alive sockets; in-flight requests keep theirs. */
  dropIdleConnections(): void {
    const free = (this.#agent as { freeSockets?: Record<string, { destroy(): void }[] | undefined> }).freeSockets ?? {};
    for (const sockets of Object.values(free)) for (const socket of [...(sockets ?? [])]) socket.destroy();
  }

  #error(res: StreamResponse, text: string, request: HttpRequest) {
    // A rotated token file may hold a newer token than the one just refused.
    if (res.code === 401) this.#unauthorized();
    return errorFrom(res, text, request);
  }

  /** Sends, then waits out and resends on 429 while the server names a delay and retries remain. */
  async #send(request: HttpRequest, streaming: boolean): Promise<StreamResponse> {
    const payload = request.body === undefined ? undefined : Buffer.from(JSON.stringify(request.body));
    for (let attempt = 1;; attempt++) {
      const res = await this.#attempt(request, payload, streaming);
      if (res.code !== 429 || attempt > this.retry.maxRetries) return res;
      const text = await readAll(res.body);
      const delayMs = retryAfterMs(res.headers, text, this.retry.maxDelayMs);
      if (delayMs === undefined) return { ...res, body: replay(text) };
      this.hooks.retrying?.(request, attempt, delayMs);
      await sleep(delayMs, request.signal);
    }
  }

  async #attempt(request: HttpRequest, payload: Buffer | undefined, streaming: boolean): Promise<StreamResponse> {
    await this.hooks.before?.(request);
    const base = await this.#base();
    const url = new URL(request.path, this.server);
    const headers: Record<string, string | number> = {
      ...(base.headers as Record<string, string>),
      Accept: request.accept ?? 'application/json',
    };
    if (payload) {
      headers['Content-Type'] = request.contentType ?? 'application/json';
      headers['Content-Length'] = payload.length;
    }
    const started = performance.now();
    // Once per attempt: aborting or destroying a stream after its headers arrived (closing a watch)
    // raises a request error that is not a second request.
    let recorded = false;
    const record = (code: number): void => {
      if (recorded) return;
      recorded = true;
      this.hooks.after?.({
        verb: request.verb,
        resource: request.resource,
        method: request.method,
        host: this.server.host,
        code,
        seconds: (performance.now() - started) / 1000,
      });
    };
    const lib = url.protocol === 'https:' ? https : http;
    const deadlineMs = deadlineFor(request, this.deadlines);
    // Aborting through a signal is what closes the connection under Deno too (its req.destroy()
    // leaves a reused socket open and reports nothing until the peer closes it).
    const deadline = deadlineMs === undefined ? undefined : new AbortController();
    const signals = [request.signal, deadline?.signal].filter((s): s is AbortSignal => s !== undefined);
    const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
    return await new Promise<StreamResponse>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      let response: http.IncomingMessage | undefined;
      const settled = () => clearTimeout(timer);
      const req = lib.request(
        url,
        // A stream gets a connection of its own: it holds it for minutes, and taking a pooled one
        // could hand a fresh watch a connection that died unnoticed while idle.
        { ...base, method: request.method, headers, agent: streaming ? false : this.#agent, ...(signal ? { signal } : {}) },
        (res) => {
          record(res.statusCode ?? 0);
          response = res;
          // A stream's deadline ends with its headers; a whole exchange's when its body is read.
          if (streaming) settled();
          else res.once('close', settled);
          resolve({ code: res.statusCode ?? 0, headers: res.headers, body: res, close: () => res.destroy() });
        },
      );
      if (deadline && deadlineMs !== undefined) {
        timer = setTimeout(() => {
          // The socket goes with the request; the body's reader, if any, sees the same error.
          const error = new RequestTimeoutError(request, deadlineMs);
          deadline.abort(error);
          response?.destroy(error);
          req.destroy(error);
          record(0);
          reject(error);
          this.dropIdleConnections();
        }, deadlineMs);
      }
      req.on('error', (error) => {
        settled();
        record(0);
        reject(error);
      });
      if (streaming) req.setNoDelay(true);
      req.end(payload);
    });
  }
}

/** A Retry-After header in seconds, else a Status's details.retryAfterSeconds, capped; undefined when neither. */
function retryAfterMs(headers: http.IncomingHttpHeaders, text: string, maxMs: number): number | undefined {
  let seconds = Number(headers['retry-after'] ?? NaN);
  if (!Number.isFinite(seconds)) {
    try {
      seconds = Number((JSON.parse(text) as Status).details?.retryAfterSeconds ?? NaN);
    } catch {
      return undefined;
    }
  }
  if (!Number.isFinite(seconds) || seconds < 0) return undefined;
  return Math.min(seconds * 1000, maxMs);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A bearer token kept in a file that its issuer rewrites (kubelet rotates projected SA tokens). */
class FileToken {
  readonly #path: string;
  readonly #refreshMs: number;
  #value: string | undefined;
  #readAt = -Infinity;
  #reading: Promise<string | undefined> | undefined;

  constructor(path: string, initial: string | undefined, refreshMs: number) {
    this.#path = path;
    this.#value = initial;
    this.#refreshMs = refreshMs;
  }

  get(): Promise<string | undefined> {
    if (performance.now() - this.#readAt < this.#refreshMs) return Promise.resolve(this.#value);
    this.#reading ??= this.#read().finally(() => (this.#reading = undefined));
    return this.#reading;
  }

  expire(): void {
    this.#readAt = -Infinity;
  }

  async #read(): Promise<string | undefined> {
    try {
      const text = (await readFile(this.#path, 'utf8')).trim();
      if (text === '') throw new Error('the file is empty');
      this.#value = text;
      this.#readAt = performance.now();
    } catch (error) {
      // Keep using the last good token (it is probably still valid); fail only without one.
      if (this.#value === undefined) throw new Error(`reading the bearer token from ${this.#path}: ${(error as Error).message}`);
    }
    return this.#value;
  }
}

async function* replay(text: string): AsyncGenerator<Buffer> {
  yield Buffer.from(text);
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
