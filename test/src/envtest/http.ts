// The launcher's path-based API client: readiness, CRD installation, discovery and the launcher's own
// tests address the apiserver by URL path rather than by typed resource. It is a thin layer over the
// generated Transport (TLS against the environment's CA, bearer token or client certificate, typed
// ApiErrors), adding query building, a default timeout and client-go-like retries of 429.
import { ApiError, type HttpRequest, jsonLines, Transport } from '@metal3-ts/generated';

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

type Method = HttpRequest['method'];

export class ApiClient {
  readonly server: string;
  readonly caPem: string;
  readonly credentials: Credentials;
  readonly transport: Transport;

  constructor(server: string, caPem: string, credentials: Credentials) {
    this.server = server;
    this.caPem = caPem;
    this.credentials = credentials;
    this.transport = Transport.fromConnection({
      server,
      caPem,
      ...(credentials.token ? { token: credentials.token } : {}),
      ...(credentials.certPem ? { clientCertPem: credentials.certPem } : {}),
      ...(credentials.keyPem ? { clientKeyPem: credentials.keyPem } : {}),
    });
  }

  /** A client for the same server with other credentials. */
  as(credentials: Credentials): ApiClient {
    return new ApiClient(this.server, this.caPem, credentials);
  }

  close(): void {
    this.transport.close();
  }

  /**
   * Sends a request; resolves with the parsed JSON body (or text with `raw`) on 2xx, rejects with
   * ApiError otherwise. A 429 (e.g. "storage is (re)initializing" right after a CRD appears, or
   * priority and fairness pushing back) is retried a few times after Retry-After, as client-go does.
   */
  async request<T = KubeObject>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const request = this.#request(method as Method, path, options);
    for (let attempt = 1;; attempt++) {
      try {
        if (options.raw) return (await this.transport.requestText(request)) as T;
        return await this.transport.request<T>(request);
      } catch (error) {
        if (!(error instanceof ApiError) || error.code !== 429 || attempt >= 10) throw error;
        const seconds = error.status?.details?.retryAfterSeconds ?? 0.2;
        await new Promise((r) => setTimeout(r, Math.min(1000, 1000 * seconds)));
      }
    }
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
   * Opens a watch (`?watch=1`) and yields events as they arrive, ERROR events included. Breaking out
   * of the loop (or calling return()) closes the connection.
   */
  async *watch<T = KubeObject>(path: string, query: RequestOptions['query'] = {}): AsyncGenerator<WatchEvent<T>> {
    const res = await this.transport.stream(this.#request('GET', path, { query: { ...query, watch: 1 }, timeoutMs: 0 }));
    try {
      yield* jsonLines<WatchEvent<T>>(res.body);
    } finally {
      res.close();
    }
  }

  #request(method: Method, path: string, options: RequestOptions): HttpRequest {
    const url = new URL(path, this.server);
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const timeoutMs = options.timeoutMs ?? 30_000;
    return {
      method,
      path: `${url.pathname}${url.search}`,
      verb: method.toLowerCase(),
      resource: url.pathname,
      ...(options.body !== undefined ? { body: options.body } : {}),
      ...(options.contentType ? { contentType: options.contentType } : {}),
      ...(timeoutMs > 0 ? { timeoutMs } : {}),
    };
  }
}

/** True for a 404 ApiError, the usual "not there yet" signal while polling. */
export function isNotFound(error: unknown): boolean {
  return error instanceof ApiError && error.code === 404;
}
