// Lease leader election with client-go's semantics. A candidate tries to take the lease every retry
// period (jittered); the leader renews it every retry period and gives leadership up when renewals
// have failed for the renew deadline; on a clean stop it releases the lease so a successor takes over
// at once. Safety rests on the apiserver: every write is a PUT with a resourceVersion precondition,
// so two candidates can never both hold the lease.
//
// Losing leadership is final for one run(): controllers cannot know what a successor did meanwhile,
// so the Manager stops and the process exits (as controller-runtime does); the supervisor restarts
// it as a fresh candidate. Libraries that want otherwise can act in onStoppedLeading.
import { ConflictError } from '@metal3-ts/generated';
import { type Lease, newLease } from '@metal3-ts/generated/coordination.k8s.io/v1';
import { type Clock, realClock } from '../clock/clock.ts';
import { type Logger, silentLogger } from '../log/logger.ts';
import type { Registry } from '../metrics/registry.ts';
import type { LeaseLock } from './lease-lock.ts';
import {
  claimedSpec,
  defaultLeaseTimings,
  isHeldByOther,
  JITTER_FACTOR,
  type LeaseTimings,
  recordFingerprint,
  releasedSpec,
  renewAttemptBudgetMs,
  validateTimings,
} from './lease-record.ts';

/** Why a term ended: renewals failed (`lost`), or run() was stopped (`released` if we gave the lease back). */
export type StoppedReason = 'lost' | 'released' | 'stopped';

export interface LeaderElectorOptions extends Partial<LeaseTimings> {
  readonly lock: LeaseLock;
  /** Unique per process: hostname plus a random suffix (see identity.ts). */
  readonly identity: string;
  /** Give the lease back when run() is stopped while leading (default true). */
  readonly releaseOnCancel?: boolean;
  /** Called when this candidate becomes leader; `leading` aborts when the term ends. */
  readonly onStartedLeading?: (leading: AbortSignal) => void;
  /** Called once when a term ends, before run() resolves. */
  readonly onStoppedLeading?: (reason: StoppedReason) => void;
  /** Called when the holder we observe changes (including to ourselves). */
  readonly onNewLeader?: (identity: string) => void;
  readonly clock?: Clock;
  readonly log?: Logger;
  readonly registry?: Registry;
  /** Source of jitter, for tests. */
  readonly random?: () => number;
}

export class LeaderElector {
  readonly identity: string;
  readonly timings: LeaseTimings;
  readonly #options: LeaderElectorOptions;
  readonly #lock: LeaseLock;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #random: () => number;
  readonly #status: ((value: number) => void) | undefined;
  readonly #slowpath: (() => void) | undefined;
  /** The lease as last read or written, and when (local clock) its record last changed. */
  #observed: Lease | undefined;
  #observedFingerprint = '';
  #observedAtMs = 0;
  #leading = false;
  #running = false;
  #lastHolder = '';

  constructor(options: LeaderElectorOptions) {
    this.timings = {
      leaseDurationMs: options.leaseDurationMs ?? defaultLeaseTimings.leaseDurationMs,
      renewDeadlineMs: options.renewDeadlineMs ?? defaultLeaseTimings.renewDeadlineMs,
      retryPeriodMs: options.retryPeriodMs ?? defaultLeaseTimings.retryPeriodMs,
    };
    validateTimings(this.timings);
    if (!options.identity) throw new Error('leader election: identity must not be empty');
    this.identity = options.identity;
    this.#options = options;
    this.#lock = options.lock;
    this.#clock = options.clock ?? realClock;
    this.#random = options.random ?? Math.random;
    this.#log = (options.log ?? silentLogger).with({ lease: options.lock.description, identity: options.identity });
    if (options.registry) {
      const labels = { name: options.lock.name };
      const status = options.registry.gauge(
        'leader_election_master_status',
        "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
        ['name'],
      );
      const slowpath = options.registry.counter(
        'leader_election_slowpath_total',
        "Total number of slow path exercised in renewing leader leases. 'name' is the string used to identify the lease. Please make sure to group by name.",
        ['name'],
      );
      status.set(labels, 0);
      slowpath.touch(labels);
      this.#status = (v) => status.set(labels, v);
      this.#slowpath = () => slowpath.inc(labels);
    }
  }

  /** True while this process holds the lease and believes its term valid. */
  isLeader(): boolean {
    return this.#leading;
  }

  /** The holder we last observed ('' when none). */
  leader(): string {
    return this.#observed?.spec?.holderIdentity ?? '';
  }

  /**
   * Health: false when we are leading but have not renewed for much longer than the lease duration
   * (the renew loop is wedged). `toleranceMs` as client-go's HealthzAdaptor timeout.
   */
  healthy(toleranceMs = 20_000): boolean {
    return !this.#leading || this.#clock.now() - this.#observedAtMs <= this.timings.leaseDurationMs + toleranceMs;
  }

  /**
   * Campaigns until elected, leads until the term ends, then resolves. `signal` stops it: while
   * campaigning it just returns; while leading it ends the term and (with releaseOnCancel) releases
   * the lease. Resolves with how the term ended, or undefined when it never led.
   */
  async run(signal: AbortSignal): Promise<StoppedReason | undefined> {
    if (this.#running) throw new Error('leader election: run() is already running');
    this.#running = true;
    try {
      this.#log.info('campaigning for leadership');
      if (!(await this.#acquire(signal))) return undefined;
      this.#leading = true;
      this.#status?.(1);
      this.#log.info('became leader');
      const term = new AbortController();
      this.#options.onStartedLeading?.(term.signal);
      const renewed = await this.#renewUntilLostOrStopped(signal);
      this.#leading = false;
      this.#status?.(0);
      term.abort(new Error('leadership ended'));
      let reason: StoppedReason = 'lost';
      if (renewed === 'stopped') reason = (this.#options.releaseOnCancel ?? true) && (await this.#release()) ? 'released' : 'stopped';
      if (reason === 'lost') this.#log.error('leadership lost: renewals failed past the renew deadline', { renewDeadlineMs: this.timings.renewDeadlineMs });
      else this.#log.info(reason === 'released' ? 'released the lease' : 'stopped leading without releasing the lease');
      this.#options.onStoppedLeading?.(reason);
      return reason;
    } finally {
      this.#running = false;
    }
  }

  async #acquire(signal: AbortSignal): Promise<boolean> {
    while (!signal.aborted) {
      const attempt = AbortSignal.any([signal, AbortSignal.timeout(Math.ceil(this.timings.renewDeadlineMs))]);
      if (await this.#tryAcquireOrRenew(attempt)) return true;
      const wait = this.timings.retryPeriodMs * (1 + JITTER_FACTOR * this.#random());
      if (!(await this.#sleep(wait, signal))) return false;
    }
    return false;
  }

  async #renewUntilLostOrStopped(signal: AbortSignal): Promise<'lost' | 'stopped'> {
    for (;;) {
      if (!(await this.#sleep(this.timings.retryPeriodMs, signal))) return 'stopped';
      // One renewal round: retry every retry period until it succeeds or the deadline passes.
      const deadline = this.#clock.now() + this.timings.renewDeadlineMs;
      let renewed = false;
      while (!renewed) {
        const remaining = deadline - this.#clock.now();
        if (remaining <= 0) return 'lost';
        // Bounded below the deadline: a renewal stuck on a dead connection must leave time for one
        // on a fresh connection (aborting drops the dead one), and can never outlast the deadline.
        const attempt = AbortSignal.any([signal, AbortSignal.timeout(Math.ceil(renewAttemptBudgetMs(remaining, this.timings)))]);
        renewed = await this.#tryAcquireOrRenew(attempt);
        if (signal.aborted) return 'stopped';
        if (!renewed && !(await this.#sleep(Math.min(this.timings.retryPeriodMs, deadline - this.#clock.now()), signal))) return 'stopped';
      }
    }
  }

  /** One attempt, as client-go's tryAcquireOrRenew: true when we hold the lease afterwards. */
  async #tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    // Fast path: a valid leader renews from the lease it last wrote, without reading it first.
    if (this.#leading && this.#observed && this.#clock.now() < this.#observedAtMs + this.timings.leaseDurationMs) {
      try {
        const spec = claimedSpec(this.#observed.spec, this.identity, this.timings.leaseDurationMs, new Date());
        this.#observe(await this.#lock.update({ ...this.#observed, spec }, signal));
        return true;
      } catch (error) {
        if (signal.aborted) return false;
        this.#slowpath?.();
        this.#log.debug('fast-path renewal failed; reading the lease', { error });
      }
    }
    let current: Lease | undefined;
    try {
      current = await this.#lock.get(signal);
    } catch (error) {
      this.#log.warn('cannot read the lease', { error });
      return false;
    }
    const now = new Date();
    if (!current) {
      try {
        const lease = newLease({ metadata: { name: this.#lock.name }, spec: claimedSpec(undefined, this.identity, this.timings.leaseDurationMs, now) });
        this.#observe(await this.#lock.create(lease, signal));
        return true;
      } catch (error) {
        this.#log.debug('cannot create the lease', { error });
        return false;
      }
    }
    this.#observe(current);
    if (isHeldByOther(current.spec, this.identity, this.#observedAtMs, this.#clock.now())) return false;
    try {
      const spec = claimedSpec(current.spec, this.identity, this.timings.leaseDurationMs, now);
      this.#observe(await this.#lock.update({ ...current, spec }, signal));
      return true;
    } catch (error) {
      this.#log.debug('cannot update the lease', { error });
      return false;
    }
  }

  /** Records a lease we read or wrote; the observation time moves only when the record changed. */
  #observe(lease: Lease): void {
    const fingerprint = recordFingerprint(lease.spec);
    if (fingerprint !== this.#observedFingerprint) {
      this.#observedFingerprint = fingerprint;
      this.#observedAtMs = this.#clock.now();
    }
    this.#observed = lease;
    const holder = lease.spec?.holderIdentity ?? '';
    if (holder !== this.#lastHolder) {
      this.#lastHolder = holder;
      if (holder !== '') {
        this.#log.info('new leader observed', { leader: holder });
        this.#options.onNewLeader?.(holder);
      }
    }
  }

  /**
   * Gives the lease back so a successor need not wait out the lease duration: true when it was ours
   * and the write went through. For owners that stop their work first and release after (the
   * Manager runs its elector with releaseOnCancel false and calls this once its controllers stopped).
   */
  async release(): Promise<boolean> {
    if (this.#leading) throw new Error('leader election: stop run() before releasing the lease');
    return await this.#release();
  }

  async #release(): Promise<boolean> {
    const signal = AbortSignal.timeout(Math.ceil(this.timings.renewDeadlineMs));
    let lease = this.#observed;
    // A renewal cut short by the stop may still have landed, leaving our resourceVersion stale: on a
    // conflict, read again and release if the lease is still ours.
    for (let attempt = 0; attempt < 3; attempt++) {
      if (!lease || (lease.spec?.holderIdentity ?? '') !== this.identity) return false;
      try {
        this.#observe(await this.#lock.update({ ...lease, spec: releasedSpec(lease.spec, new Date()) }, signal));
        return true;
      } catch (error) {
        if (!(error instanceof ConflictError) || signal.aborted) {
          this.#log.warn('cannot release the lease; followers take over after it expires', { error });
          return false;
        }
      }
      try {
        lease = await this.#lock.get(signal);
        if (lease) this.#observe(lease);
      } catch (error) {
        this.#log.warn('cannot release the lease; followers take over after it expires', { error });
        return false;
      }
    }
    return false;
  }

  /** Sleeps; false when `signal` aborted first. */
  async #sleep(ms: number, signal: AbortSignal): Promise<boolean> {
    try {
      await this.#clock.sleep(Math.max(0, ms), signal);
      return true;
    } catch {
      return false;
    }
  }
}
