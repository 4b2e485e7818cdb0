// A tiny Kubernetes API client on node:https: enough for readiness, CRD installation, discovery and the
// launcher's own tests, without loading a full client library. It verifies the server against the
// environment's CA and authenticates with a bearer token or a client certificate.
import { Agent, request as httpsRequest } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { ApiError } from './errors.ts';

export interface Credentials {
  readonly token?: string;
  readonly certPem?: string;
  readonly keyPem?: string;
}

export interface RequestOptions {
  readonly body?: unknown;
  /** Defaults to application/json when a body is given. */
  readonly contentType?: string;
  readonly query?: Record<string, string | number | boolean | undefined>;
  readonly timeoutMs?: number;
  /** Return the raw text instead of parsing JSON (e.g. /readyz). */
  readonly raw?: boolean;
}

export interface WatchEvent<T = KubeObject> {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  readonly object: T;
}

/** The common shape of every Kubernetes object, loose enough for any kind. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    resourceVersion?: string;
    uid?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

export class ApiClient {
  readonly server: string;
  readonly caPem: string;
  readonly credentials: Credentials;
  readonly #agent: Agent;

  constructor(server: string, caPem: string, credentials: Credentials) {
    this.server = server;
    this.caPem = caPem;
    this.credentials = credentials;
    // keepAlive: polling /readyz and discovery every 100 ms should not pay a TLS handshake each time.
    this.#agent = new Agent({
      ca: caPem,
      cert: credentials.certPem,
      key: credentials.keyPem,
      keepAlive: true,
      maxSockets: 16,
    });
  }

  /** A client for the same server with other credentials. */
  as(credentials: Credentials): ApiClient {
    return new ApiClient(this.server, this.caPem, credentials);
  }

  close(): void {
    this.#agent.destroy();
  }

  #open(method: string, path: string, options: RequestOptions, onResponse: (res: IncomingMessage) => void, onError: (e: Error) => void) {
    const url = new URL(path, this.server);
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.credentials.token) headers['authorization'] = `Bearer ${this.credentials.token}`;
    let payload: string | undefined;
    if (options.body !== undefined) {
      payload = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['content-type'] = options.contentType ?? 'application/json';
    }
    const req = httpsRequest(url, { method, headers, agent: this.#agent, timeout: options.timeoutMs ?? 30_000 }, onResponse);
    req.on('timeout', () => req.destroy(new Error(`${method} ${url.pathname}: timed out`)));
    req.on('error', onError);
    req.end(payload);
    return req;
  }

  /**
   * Sends a request; resolves with the parsed JSON body on 2xx, rejects with ApiError otherwise.
   * A 429 with Retry-After (e.g. "storage is (re)initializing" right after a CRD appears, or priority
   * and fairness pushing back) is retried a few times, as client-go does.
   */
  async request<T = KubeObject>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#once<T>(method, path, options);
      } catch (error) {
        if (!(error instanceof ApiError) || error.code !== 429 || attempt >= 10) throw error;
        await new Promise((r) => setTimeout(r, Math.min(1000, 1000 * (error.retryAfterSeconds ?? 0.2))));
      }
    }
  }

  #once<T>(method: string, path: string, options: RequestOptions): Promise<T> {
    return new Promise((resolve, reject) => {
      this.#open(
        method,
        path,
        options,
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let body: unknown = text;
            if (!options.raw || (res.statusCode ?? 0) >= 300) {
              try {
                body = text ? JSON.parse(text) : undefined;
              } catch {
                body = text;
              }
            }
            const code = res.statusCode ?? 0;
            if (code >= 200 && code < 300) resolve(body as T);
            else {
              const retryAfter = Number(res.headers['retry-after']);
              reject(new ApiError(method, path, code, body, Number.isFinite(retryAfter) ? retryAfter : undefined));
            }
          });
        },
        reject,
      );
    });
  }

  get<T = KubeObject>(path: string, options?: RequestOptions): Promise<T> {
    return this.request<T>('GET', path, options);
  }
  create<T extends KubeObject = KubeObject>(path: string, body: unknown): Promise<T> {
    return this.request<T>('POST', path, { body });
  }
  replace<T extends KubeObject = KubeObject>(path: string, body: unknown): Promise<T> {
    return this.request<T>('PUT', path, { body });
  }
  delete<T = KubeObject>(path: string): Promise<T> {
    return this.request<T>('DELETE', path);
  }
  /** JSON merge patch (RFC 7386), the simplest patch that works on custom resources. */
  mergePatch<T extends KubeObject = KubeObject>(path: string, patch: unknown): Promise<T> {
    return this.request<T>('PATCH', path, { body: patch, contentType: 'application/merge-patch+json' });
  }
  /** Server-side apply; `force` takes ownership of conflicting fields. */
  apply<T extends KubeObject = KubeObject>(path: string, object: unknown, fieldManager: string, force = true): Promise<T> {
    return this.request<T>('PATCH', path, {
      body: object,
      contentType: 'application/apply-patch+yaml',
      query: { fieldManager, force },
    });
  }

  /**
   * Opens a watch (`?watch=1`) and yields events as they arrive. Breaking out of the loop (or calling
   * return()) closes the connection.
   */
  async *watch<T = KubeObject>(path: string, query: RequestOptions['query'] = {}): AsyncGenerator<WatchEvent<T>> {
    const queue: (WatchEvent<T> | Error | null)[] = [];
    let wake: (() => void) | undefined;
    const push = (item: WatchEvent<T> | Error | null) => {
      queue.push(item);
      wake?.();
    };
    let buffered = '';
    const req = this.#open(
      'GET',
      path,
      { query: { ...query, watch: 1 }, timeoutMs: 0 },
      (res) => {
        if ((res.statusCode ?? 0) >= 300) {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => push(new ApiError('WATCH', path, res.statusCode ?? 0, safeJson(Buffer.concat(chunks).toString()))));
          return;
        }
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffered += chunk;
          let nl: number;
          while ((nl = buffered.indexOf('\n')) >= 0) {
            const line = buffered.slice(0, nl).trim();
            buffered = buffered.slice(nl + 1);
            if (line) push(JSON.parse(line) as WatchEvent<T>);
          }
        });
        res.on('end', () => push(null));
        res.on('error', (e) => push(e));
      },
      (e) => push(e),
    );
    try {
      for (;;) {
        if (queue.length === 0) await new Promise<void>((r) => (wake = r));
        wake = undefined;
        const item = queue.shift();
        if (item === undefined) continue;
        if (item === null) return;
        if (item instanceof Error) throw item;
        yield item;
      }
    } finally {
      req.destroy();
    }
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** True for a 404 ApiError, the usual "not there yet" signal while polling. */
export function isNotFound(error: unknown): boolean {
  return error instanceof ApiError && error.code === 404;
}
