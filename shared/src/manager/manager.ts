// The Manager runs a process's runnables (informers, controllers) and its HTTP endpoints, as
// controller-runtime's manager does:
//
// - runnables that do not need leader election (informers) start at once; the others (controllers)
//   start when this process wins the Lease, or at once when election is off;
// - `/healthz` and `/readyz` answer from registered checks, `/metrics` renders the Registry;
// - shutdown (start's signal aborts) stops the controllers first and lets their in-flight reconciles
//   finish within the graceful budget (default 30 s), then releases the lease so a successor starts
//   at once, then stops the informers and the servers;
// - losing the lease is not a shutdown but an emergency: a successor may already be reconciling, so
//   nothing is waited for; start() rejects with LeaderElectionLostError and the entry point exits
//   non-zero so the supervisor restarts the process as a fresh candidate.
import { type Clock, realClock } from '../clock/clock.ts';
import { LeaderElector } from '../leader/leader-elector.ts';
import { candidateIdentity } from '../leader/identity.ts';
import type { LeaseLock } from '../leader/lease-lock.ts';
import type { LeaseTimings } from '../leader/lease-record.ts';
import { type Logger, silentLogger } from '../log/logger.ts';
import { Registry } from '../metrics/registry.ts';
import { type Check, Checks } from './health.ts';
import { parseBindAddress, type Route, type RunningServer, startHttpServer } from './http-server.ts';
import type { Runnable } from './runnable.ts';

export interface LeaderElectionSettings extends Partial<LeaseTimings> {
  /** The Lease to campaign for (see leader/lease-lock.ts `leaseLock(client, namespace, id)`). */
  readonly lock: LeaseLock;
  /** Default: hostname plus a random suffix. */
  readonly identity?: string;
  /** Release the lease once the controllers have stopped on shutdown (default true). */
  readonly releaseOnCancel?: boolean;
}

export interface ManagerOptions {
  readonly registry?: Registry;
  readonly log?: Logger;
  readonly clock?: Clock;
  /** `host:port` serving `/metrics`; `0` or unset: no metrics server. */
  readonly metricsBindAddress?: string;
  /** `host:port` serving `/healthz` and `/readyz`; `0` or unset: no probe server. May equal the metrics address. */
  readonly healthProbeBindAddress?: string;
  /** How long shutdown waits for runnables (in-flight reconciles) to finish. Default 30 s. */
  readonly gracefulShutdownTimeoutMs?: number;
  /** Unset: no leader election, controllers start at once. */
  readonly leaderElection?: LeaderElectionSettings;
}

export class LeaderElectionLostError extends Error {
  override name = 'LeaderElectionLostError';
}

export class ShutdownTimeoutError extends Error {
  override name = 'ShutdownTimeoutError';
  readonly pending: readonly string[];
  constructor(budgetMs: number, pending: readonly string[]) {
    super(`runnables still running after the ${budgetMs} ms shutdown budget: ${pending.join(', ')}`);
    this.pending = pending;
  }
}

export class RunnableFailedError extends Error {
  override name = 'RunnableFailedError';
  readonly runnable: string;
  constructor(runnable: string, cause: unknown) {
    super(`runnable ${runnable} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.runnable = runnable;
  }
}

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

type StopCause = { kind: 'signal' } | { kind: 'failed'; error: Error } | { kind: 'lost' };
type State = 'idle' | 'running' | 'stopping' | 'stopped';

export class Manager {
  readonly registry: Registry;
  readonly log: Logger;
  readonly #clock: Clock;
  readonly #options: ManagerOptions;
  readonly #health = new Checks('healthz');
  readonly #ready = new Checks('readyz');
  readonly #runnables: Runnable[] = [];
  readonly #leaderRunning = new Map<Runnable, Promise<void>>();
  readonly #othersRunning = new Map<Runnable, Promise<void>>();
  readonly #leaderStop = new AbortController();
  readonly #othersStop = new AbortController();
  readonly #elector: LeaderElector | undefined;
  #state: State = 'idle';
  #leading = false;
  #requestStop: (cause: StopCause) => void = () => {};
  #servers: RunningServer[] = [];
  #addresses: { metrics?: string; healthProbe?: string } = {};
  #started = deferred<void>();

  constructor(options: ManagerOptions = {}) {
    this.#options = options;
    this.registry = options.registry ?? new Registry();
    this.log = options.log ?? silentLogger;
    this.#clock = options.clock ?? realClock;
    this.#started.promise.catch(() => {});
    const election = options.leaderElection;
    if (election) {
      this.#elector = new LeaderElector({
        ...election,
        identity: election.identity ?? candidateIdentity(),
        releaseOnCancel: false, // the manager releases itself, after its controllers have stopped
        onStartedLeading: () => this.#becomeLeader(),
        onStoppedLeading: (reason) => {
          if (reason === 'lost') this.#requestStop({ kind: 'lost' });
        },
        clock: this.#clock,
        log: this.log,
        registry: this.registry,
      });
      this.#health.add('leader-election', () => this.#elector?.healthy() ?? true);
    }
  }

  /** Registers a runnable; after start() it starts at once (or when leadership is won). */
  add(runnable: Runnable): void {
    if (this.#state === 'stopping' || this.#state === 'stopped') throw new Error(`manager is ${this.#state}: cannot add ${runnable.name}`);
    this.#runnables.push(runnable);
    if (this.#state !== 'running') return;
    if (!runnable.needsLeaderElection) this.#launch(runnable, this.#othersStop.signal, this.#othersRunning);
    else if (this.#leading) this.#launch(runnable, this.#leaderStop.signal, this.#leaderRunning);
  }

  /** A liveness check served on `/healthz` (failing it makes the kubelet restart the container). */
  addHealthCheck(name: string, check: Check): void {
    this.#health.add(name, check);
  }

  /** A readiness check served on `/readyz` (e.g. informer caches synced). */
  addReadyCheck(name: string, check: Check): void {
    this.#ready.add(name, check);
  }

  /** True while this process may run controllers: it holds the lease, or election is off. */
  isLeader(): boolean {
    return this.#leading;
  }

  /** This process's candidate identity (undefined without leader election). */
  get identity(): string | undefined {
    return this.#elector?.identity;
  }

  /** Bound addresses (`host:port`, with the real port when 0 was asked for), once started. */
  get addresses(): { readonly metrics?: string; readonly healthProbe?: string } {
    return this.#addresses;
  }

  /** Resolves once the servers listen and the runnables that may run have been started. */
  get started(): Promise<void> {
    return this.#started.promise;
  }

  /**
   * Runs everything until `signal` aborts, a runnable fails, or leadership is lost; then shuts down
   * as described at the top of this file. Resolves after a clean shutdown, rejects otherwise
   * (RunnableFailedError, LeaderElectionLostError, ShutdownTimeoutError, or a server bind error).
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.#state !== 'idle') throw new Error('manager: start() may only be called once');
    this.#state = 'running';
    const stop = deferred<StopCause>();
    let stopCause: StopCause | undefined;
    this.#requestStop = (cause) => {
      if (stopCause) return;
      stopCause = cause;
      stop.resolve(cause);
    };
    try {
      await this.#startServers();
    } catch (error) {
      this.#state = 'stopped';
      this.#started.reject(error);
      throw error;
    }
    const onAbort = () => this.#requestStop({ kind: 'signal' });
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();

    for (const r of this.#runnables) if (!r.needsLeaderElection) this.#launch(r, this.#othersStop.signal, this.#othersRunning);
    const electionStop = new AbortController();
    const election = this.#elector?.run(electionStop.signal);
    if (!this.#elector) this.#becomeLeader();
    this.#started.resolve();

    const cause = await stop.promise;
    signal.removeEventListener('abort', onAbort);
    return this.#shutdown(cause, electionStop, election);
  }

  async #shutdown(cause: StopCause, electionStop: AbortController, election: Promise<unknown> | undefined): Promise<void> {
    this.#state = 'stopping';
    const budgetMs = this.#options.gracefulShutdownTimeoutMs ?? 30_000;
    // After losing the lease nothing may be awaited: a successor can be reconciling already.
    const deadline = this.#clock.now() + (cause.kind === 'lost' ? 0 : budgetMs);
    this.log.info('stopping', { reason: cause.kind === 'failed' ? cause.error.message : cause.kind, budgetMs: cause.kind === 'lost' ? 0 : budgetMs });

    this.#leaderStop.abort(new Error('manager stopping'));
    const leaderPending = await this.#settleWithin(this.#leaderRunning, deadline);
    electionStop.abort(new Error('manager stopping'));
    await election;
    if (this.#elector && cause.kind !== 'lost') {
      if (leaderPending.length > 0) this.log.warn('not releasing the lease: controllers are still running; it expires on its own', { pending: leaderPending });
      else if (this.#options.leaderElection?.releaseOnCancel ?? true) await this.#elector.release();
    }
    this.#leading = false;
    this.#othersStop.abort(new Error('manager stopping'));
    const othersPending = await this.#settleWithin(this.#othersRunning, deadline);
    await Promise.all(this.#servers.map((s) => s.close()));
    this.#state = 'stopped';

    if (cause.kind === 'failed') throw cause.error;
    if (cause.kind === 'lost') throw new LeaderElectionLostError('leader election lost: stopped without waiting for in-flight work');
    const pending = [...leaderPending, ...othersPending];
    if (pending.length > 0) throw new ShutdownTimeoutError(budgetMs, pending);
    this.log.info('stopped');
  }

  #becomeLeader(): void {
    if (this.#state !== 'running' || this.#leading) return;
    this.#leading = true;
    for (const r of this.#runnables) if (r.needsLeaderElection) this.#launch(r, this.#leaderStop.signal, this.#leaderRunning);
  }

  #launch(runnable: Runnable, signal: AbortSignal, running: Map<Runnable, Promise<void>>): void {
    if (running.has(runnable)) return;
    this.log.debug('starting runnable', { runnable: runnable.name });
    const done = (async () => await runnable.start(signal))().then(
      () => {
        if (!signal.aborted) this.log.info('runnable returned before shutdown', { runnable: runnable.name });
      },
      (error: unknown) => {
        this.log.error('runnable failed', { runnable: runnable.name, error });
        this.#requestStop({ kind: 'failed', error: new RunnableFailedError(runnable.name, error) });
      },
    );
    running.set(runnable, done);
  }

  /** Waits for the runnables until `deadline` (local clock); returns the names still running. */
  async #settleWithin(running: Map<Runnable, Promise<void>>, deadline: number): Promise<string[]> {
    const pending = new Set(running.keys());
    const all = Promise.all([...running].map(([r, p]) => p.then(() => pending.delete(r))));
    const timer = new AbortController();
    const timeout = this.#clock.sleep(Math.max(0, deadline - this.#clock.now()), timer.signal).catch(() => {});
    await Promise.race([all, timeout]);
    timer.abort();
    return [...pending].map((r) => r.name);
  }

  async #startServers(): Promise<void> {
    const routes = new Map<string, Route[]>();
    const metrics = this.#options.metricsBindAddress ?? '0';
    const probes = this.#options.healthProbeBindAddress ?? '0';
    const metricsRoute: Route = ({ path }) =>
      Promise.resolve(path === '/metrics' ? { status: 200, contentType: METRICS_CONTENT_TYPE, body: this.registry.render() } : undefined);
    const probeRoute: Route = async ({ path, query }) => {
      for (const checks of [this.#health, this.#ready]) {
        const base = `/${checks.kind}`;
        if (path === base || path.startsWith(`${base}/`)) {
          const response = await checks.respond(path.slice(base.length + 1), query, this.log);
          return { ...response, contentType: 'text/plain; charset=utf-8' };
        }
      }
      return undefined;
    };
    if (parseBindAddress(metrics)) routes.set(metrics, [metricsRoute]);
    if (parseBindAddress(probes)) routes.set(probes, [...(routes.get(probes) ?? []), probeRoute]);
    try {
      for (const [address, handlers] of routes) {
        const server = await startHttpServer(parseBindAddress(address)!, handlers, this.log);
        this.#servers.push(server);
        if (address === metrics) this.#addresses.metrics = server.address;
        if (address === probes) this.#addresses.healthProbe = server.address;
        this.log.info('serving', {
          address: server.address,
          paths: address === probes ? (address === metrics ? 'metrics,healthz,readyz' : 'healthz,readyz') : 'metrics',
        });
      }
    } catch (error) {
      await Promise.all(this.#servers.map((s) => s.close()));
      throw error;
    }
  }
}

/** Promise.withResolvers, which the ES2023 lib we compile against does not declare. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
