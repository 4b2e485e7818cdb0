// Clients for workload clusters, the analogue of Cluster API's ClusterCache. The credentials come
// from the `<cluster>-kubeconfig` Secret in the Cluster's namespace; one client per Cluster is kept
// and reused, and thrown away (transport closed) when
//   - the Secret's resourceVersion changes (rotated or replaced credentials, a moved endpoint),
//   - the workload apiserver answers 401 (credentials revoked), or
//   - a health probe fails (the apiserver went away).
// Each cluster gets its own Transport, so credentials never leak between clusters, whatever the
// users in their kubeconfigs are called (unlike client-node, kubernetes-client/javascript#592).
//
// Health is checked lazily: get() probes `GET /version` when the cached client has not had a
// successful answer for `healthCheckIntervalMs`, or when a request through it got no response.
// Nothing runs in the background, so an idle controller costs nothing per workload cluster.
import { ApiError, type Client, type RequestRecord, UnauthorizedError } from '@metal3-ts/generated';
import { type Secret, SecretResource } from '@metal3-ts/generated/core/v1';
import type { ObjectKey } from '../cache/types.ts';
import { newClient } from '../client/client.ts';
import type { RequestCounter } from '../client/metrics.ts';
import { type Clock, realClock } from '../clock/clock.ts';
import { type Logger, silentLogger } from '../log/logger.ts';
import type { Registry } from '../metrics/registry.ts';
import { type ClusterKey, clusterKeyString, ClusterNotReachableError, kubeconfigSecretName, KubeconfigSecretNotFoundError } from './errors.ts';
import { connectionFromSecret } from './kubeconfig-secret.ts';

/** Reads the kubeconfig Secret: undefined when it does not exist. */
export type SecretReader = (key: ObjectKey) => Readonly<Secret> | undefined | Promise<Readonly<Secret> | undefined>;

export interface ClusterCacheOptions {
  readonly log?: Logger;
  /** Where the workload clients' rest_client_* metrics go (their `host` label tells clusters apart). */
  readonly registry?: Registry;
  readonly clock?: Clock;
  /** Client-side limit per resource kind of each workload cluster (CAPM3's --clustercache-client-qps/burst); off by default. */
  readonly qps?: number;
  readonly burst?: number;
  readonly userAgent?: string;
  readonly counter?: RequestCounter;
  /** Timeout of the `GET /version` probe (default 5 s). */
  readonly probeTimeoutMs?: number;
  /** Probe a cached client again once it has gone this long without a successful answer (default 10 s). */
  readonly healthCheckIntervalMs?: number;
  /**
   * Where the kubeconfig Secret is read from. Default: a GET through the management client on every
   * get(). A controller that already caches Secrets passes its store, e.g. `(k) => secrets.store.get(k)`.
   */
  readonly secretReader?: SecretReader;
  /** Requests still in flight on a dropped client get this long before its connections are cut (default 5 s). */
  readonly closeGraceMs?: number;
}

interface Entry {
  readonly key: string;
  /** The Secret's resourceVersion the client was built from. */
  readonly secretVersion: string;
  readonly client: Client;
  readonly server: string;
  /** Clock time of the last answer that proved the cluster reachable with these credentials. */
  lastOk: number;
  /** A request got no response since lastOk: probe before handing the client out again. */
  suspect: boolean;
}

export class ClusterCache {
  readonly #management: Client;
  readonly #log: Logger;
  readonly #clock: Clock;
  readonly #options: ClusterCacheOptions;
  readonly #readSecret: SecretReader;
  readonly #entries = new Map<string, Entry>();
  readonly #connecting = new Map<string, Promise<Entry>>();
  readonly #closing = new Set<ReturnType<typeof setTimeout>>();
  #closed = false;

  constructor(management: Client, options: ClusterCacheOptions = {}) {
    this.#management = management;
    this.#options = options;
    this.#log = (options.log ?? silentLogger).with({ component: 'cluster-cache' });
    this.#clock = options.clock ?? realClock;
    this.#readSecret = options.secretReader ?? ((key) => this.#getSecret(key));
  }

  /**
   * A client for the workload cluster, built from its kubeconfig Secret or reused. Throws
   * KubeconfigSecretNotFoundError, InvalidKubeconfigSecretError or ClusterNotReachableError.
   */
  async get(cluster: ClusterKey, options: { signal?: AbortSignal } = {}): Promise<Client> {
    if (this.#closed) throw new Error('cluster cache is closed');
    const key = clusterKeyString(cluster);
    const secret = await this.#readSecret({ namespace: cluster.namespace, name: kubeconfigSecretName(cluster.name) });
    if (!secret) {
      this.#drop(key, 'kubeconfig Secret deleted');
      throw new KubeconfigSecretNotFoundError(cluster);
    }
    const version = secret.metadata.resourceVersion ?? '';
    const cached = this.#entries.get(key);
    if (cached && cached.secretVersion !== version) this.#drop(key, 'kubeconfig Secret changed');
    const entry = this.#entries.get(key);
    if (entry) {
      if (!entry.suspect && this.#clock.now() - entry.lastOk < (this.#options.healthCheckIntervalMs ?? 10_000)) return entry.client;
      await this.#probe(cluster, entry, options.signal);
      return entry.client;
    }
    // Concurrent callers for the same Cluster and Secret version share one connection attempt.
    const attemptKey = `${key}@${version}`;
    let connecting = this.#connecting.get(attemptKey);
    if (!connecting) {
      connecting = this.#connect(cluster, key, version, secret, options.signal).finally(() => this.#connecting.delete(attemptKey));
      this.#connecting.set(attemptKey, connecting);
    }
    return (await connecting).client;
  }

  /** Forgets the cluster's client (e.g. the Cluster is being deleted); the next get() builds a new one. */
  drop(cluster: ClusterKey): void {
    this.#drop(clusterKeyString(cluster), 'dropped by caller');
  }

  /** True while a client for the cluster is cached. */
  has(cluster: ClusterKey): boolean {
    return this.#entries.has(clusterKeyString(cluster));
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Closes every client at once (shutdown). */
  close(): void {
    this.#closed = true;
    for (const timer of this.#closing) clearTimeout(timer);
    this.#closing.clear();
    for (const entry of this.#entries.values()) entry.client.transport.close();
    this.#entries.clear();
  }

  async #connect(cluster: ClusterKey, key: string, version: string, secret: Readonly<Secret>, signal?: AbortSignal): Promise<Entry> {
    const connection = connectionFromSecret(cluster, secret);
    const client = newClient(connection, {
      ...(this.#options.qps !== undefined ? { qps: this.#options.qps } : {}),
      ...(this.#options.burst !== undefined ? { burst: this.#options.burst } : {}),
      ...(this.#options.registry ? { registry: this.#options.registry } : {}),
      ...(this.#options.counter ? { counter: this.#options.counter } : {}),
      ...(this.#options.userAgent ? { userAgent: this.#options.userAgent } : {}),
      log: this.#log,
      clock: this.#clock,
    });
    const entry: Entry = { key, secretVersion: version, client, server: client.transport.server.host, lastOk: -Infinity, suspect: true };
    const observed = client.transport.hooks.after;
    client.transport.hooks.after = (record) => {
      observed?.(record);
      this.#observe(entry, record);
    };
    try {
      await this.#probe(cluster, entry, signal);
    } catch (error) {
      client.transport.close();
      throw error;
    }
    if (this.#closed) {
      client.transport.close();
      throw new Error('cluster cache is closed');
    }
    const previous = this.#entries.get(key);
    if (previous && previous !== entry) this.#drop(key, 'replaced');
    this.#entries.set(key, entry);
    this.#log.info('connected to workload cluster', { cluster: key, server: entry.server });
    return entry;
  }

  /** GET /version: any answer but 401 and 5xx proves the cluster reachable with these credentials. */
  async #probe(cluster: ClusterKey, entry: Entry, signal?: AbortSignal): Promise<void> {
    try {
      await entry.client.transport.requestText({
        method: 'GET',
        path: '/version',
        verb: 'get',
        resource: 'version',
        timeoutMs: this.#options.probeTimeoutMs ?? 5_000,
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      const reachable = error instanceof ApiError && !(error instanceof UnauthorizedError) && error.code < 500;
      if (!reachable) {
        this.#drop(entry.key, 'health probe failed', entry);
        this.#log.info('workload cluster not reachable', { cluster: entry.key, server: entry.server, error });
        throw new ClusterNotReachableError(cluster, error);
      }
    }
    entry.lastOk = this.#clock.now();
    entry.suspect = false;
  }

  /** Every response through a workload client says something about the cluster's health. */
  #observe(entry: Entry, record: RequestRecord): void {
    if (record.code === 401) {
      this.#drop(entry.key, 'the workload cluster answered 401', entry);
    } else if (record.code === 0) {
      entry.suspect = true;
    } else if (record.code < 500) {
      entry.lastOk = this.#clock.now();
      entry.suspect = false;
    }
  }

  /** Removes the cached entry (only `expected`, when given) and closes its transport after a grace period. */
  #drop(key: string, reason: string, expected?: Entry): void {
    const entry = this.#entries.get(key);
    if (!entry || (expected && entry !== expected)) return;
    this.#entries.delete(key);
    this.#log.info('dropping workload cluster client', { cluster: key, reason });
    // A response being read right now (the very 401 that caused the drop, say) should still arrive.
    const timer = setTimeout(() => {
      this.#closing.delete(timer);
      entry.client.transport.close();
    }, this.#options.closeGraceMs ?? 5_000);
    (timer as { unref?: () => void }).unref?.();
    this.#closing.add(timer);
  }

  async #getSecret(key: ObjectKey): Promise<Secret | undefined> {
    try {
      return await this.#management.api(SecretResource, key.namespace).get(key.name);
    } catch (error) {
      if (error instanceof ApiError && error.code === 404) return undefined;
      throw error;
    }
  }
}
