// What the manager runs: controllers, informers, servers. `start` resolves when the runnable has
// stopped after `signal` aborted (or rejects if it failed for good).

export interface Runnable {
  /** Short name for logs and health checks. */
  readonly name: string;
  /** Runs until `signal` aborts. In-flight work finishes (within the manager's budget) before it resolves. */
  start(signal: AbortSignal): Promise<void>;
  /** Only the elected leader runs it (controllers: yes; informers and servers: no). */
  readonly needsLeaderElection: boolean;
}
