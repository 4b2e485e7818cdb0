// A controller process kept running the way a kubelet keeps a container running: whenever it exits,
// whatever the code or signal (a lost lease exits 1, as controller-runtime does; an OOM or SIGKILL has
// no code), it is started again after a back-off (backoff.ts), and the exit is logged with its code,
// signal and restart count. Only stop() ends it for good. Every incarnation is kept, so log lines
// survive restarts.
import type { ControllerProcess, LogLine, Runtime } from '@metal3-ts/test/harness/controller-process';
import { restartDelay, type RestartPolicy } from './backoff.ts';

export interface Exit {
  readonly code: number | null;
  readonly signal: string | null;
  /** How long that incarnation ran. */
  readonly ranMs: number;
  /** Delay chosen before the next start. */
  readonly delayMs: number;
}

export class SupervisedController {
  readonly name: string;
  readonly runtime: Runtime;
  /** Every process started so far, the current one last. */
  readonly incarnations: ControllerProcess[] = [];
  /** Every exit seen while supervising, in order. */
  readonly exits: Exit[] = [];
  readonly #spawn: () => ControllerProcess;
  readonly #policy: RestartPolicy;
  readonly #log: (message: string) => void;
  #stopping = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #lastDelayMs: number | undefined;

  constructor(name: string, runtime: Runtime, spawn: () => ControllerProcess, policy: RestartPolicy, log: (message: string) => void) {
    this.name = name;
    this.runtime = runtime;
    this.#spawn = spawn;
    this.#policy = policy;
    this.#log = log;
    this.#start();
  }

  /** The running (or last) process. */
  get process(): ControllerProcess {
    return this.incarnations[this.incarnations.length - 1]!;
  }

  /** Times the process was started again. */
  get restarts(): number {
    return this.incarnations.length - 1;
  }

  /** Log lines of every incarnation, oldest first. */
  lines(): LogLine[] {
    return this.incarnations.flatMap((p) => p.lines);
  }

  /** Ends supervision: no further start, SIGTERM to the running process; resolves once it exited. */
  async stop(): Promise<void> {
    this.#stopping = true;
    clearTimeout(this.#timer);
    this.process.kill('SIGTERM');
    await this.process.exited;
  }

  #start(): void {
    const startedMs = performance.now();
    const p = this.#spawn();
    this.incarnations.push(p);
    void p.exited.then(({ code, signal, atMs }) => {
      if (this.#stopping) return;
      const ranMs = atMs - startedMs;
      const delayMs = restartDelay(this.#policy, this.#lastDelayMs, ranMs);
      this.#lastDelayMs = delayMs;
      this.exits.push({ code, signal, ranMs, delayMs });
      this.#log(
        `controller ${this.name} exited (code ${code ?? '-'}, signal ${signal ?? '-'}) after ${(ranMs / 1000).toFixed(1)} s; restart ${this.restarts + 1} in ${
          (delayMs / 1000).toFixed(1)
        } s`,
      );
      this.#timer = setTimeout(() => {
        if (!this.#stopping) this.#start();
      }, delayMs);
    });
  }
}
