// Child processes (etcd, kube-apiserver) that never outlive the test run.
//
// Every child is registered here. Teardown happens in layers, because each layer covers a way the
// run can end that the previous one cannot:
// 1. stop(): SIGTERM, then SIGKILL after a grace period (normal teardown, also on start failure);
// 2. SIGINT/SIGTERM/SIGHUP handlers: stop everything, then exit with the conventional code;
// 3. the 'exit' hook: synchronous SIGKILL and directory removal (process.exit(), uncaught errors);
// 4. a detached watchdog shell per environment: if Node itself is SIGKILLed (CI timeout, OOM), it
//    notices the parent is gone within a second and kills the children and removes the directory.
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync } from 'node:fs';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { EnvtestTimeoutError, ProcessExitError } from './errors.ts';

export interface SpawnOptions {
  /** Shown in errors and logs, e.g. "etcd" or "kube-apiserver (workload wl1)". */
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  /** stdout and stderr go here (appended), so a failure can quote the log tail. */
  readonly logFile: string;
  readonly cwd?: string;
}

export class ManagedProcess {
  readonly name: string;
  readonly logFile: string;
  readonly child: ChildProcess;
  readonly pid: number;
  /** Resolves when the process has exited (never rejects). */
  readonly exited: Promise<{ code: number | null; signal: string | null }>;
  exit: { code: number | null; signal: string | null } | undefined;

  constructor(options: SpawnOptions) {
    this.name = options.name;
    this.logFile = options.logFile;
    const fd = openSync(options.logFile, 'a');
    try {
      // Not detached: the child stays in our process group, so a terminal Ctrl-C reaches it too.
      this.child = spawn(options.command, options.args, { cwd: options.cwd, stdio: ['ignore', fd, fd] });
    } finally {
      closeSync(fd);
    }
    if (this.child.pid === undefined) {
      throw new ProcessExitError(this.name, null, null, `could not spawn ${options.command}`);
    }
    this.pid = this.child.pid;
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        running.delete(this);
        resolve(this.exit);
      });
      this.child.once('error', () => {
        this.exit ??= { code: null, signal: null };
        running.delete(this);
        resolve(this.exit);
      });
    });
    running.add(this);
    installHooks();
  }

  get alive(): boolean {
    return this.exit === undefined;
  }

  logTail(lines = 25): string {
    try {
      return readFileSync(this.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  }

  /** The error to throw when the process died while we waited for it. */
  exitError(): ProcessExitError {
    return new ProcessExitError(this.name, this.exit?.code ?? null, this.exit?.signal ?? null, this.logTail());
  }

  /** Resident set size in bytes (Linux /proc), or undefined once the process is gone. */
  rssBytes(): number | undefined {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${this.pid}/status`, 'utf8'));
      return m ? Number(m[1]) * 1024 : undefined;
    } catch {
      return undefined;
    }
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
  async stop(graceMs = 5000): Promise<void> {
    if (!this.alive) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}

/** Polls `check` every `intervalMs` until it returns a value; fails early if `watch` exits. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  options: { timeoutMs: number; intervalMs?: number; watch?: readonly ManagedProcess[] },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  let lastError: unknown;
  for (;;) {
    for (const p of options.watch ?? []) if (!p.alive) throw p.exitError();
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const detail = lastError instanceof Error ? `: last error: ${lastError.message}` : '';
      throw new EnvtestTimeoutError(`timed out after ${options.timeoutMs} ms waiting for ${what}${detail}`);
    }
    await sleep(options.intervalMs ?? 100);
  }
}

/** Rejects with EnvtestTimeoutError if `promise` has not settled within `ms`. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new EnvtestTimeoutError(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

// ---- process-wide registry and hooks ------------------------------------------------------------

const running = new Set<ManagedProcess>();
const directories = new Set<string>();
const watchdogs = new Set<ChildProcess>();
let hooksInstalled = false;

/** Temp directories removed by the exit hook if their environment was not stopped normally. */
export function registerDirectory(dir: string): void {
  directories.add(dir);
  installHooks();
}

export function removeDirectory(dir: string): void {
  directories.delete(dir);
  rmSync(dir, { recursive: true, force: true });
}

/** Processes still running (for tests of the teardown itself). */
export function runningProcesses(): readonly ManagedProcess[] {
  return [...running];
}

function killAllSync(): void {
  for (const p of running) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  for (const w of watchdogs) w.kill('SIGKILL');
  for (const dir of directories) rmSync(dir, { recursive: true, force: true });
  directories.clear();
}

async function stopAll(): Promise<void> {
  await Promise.all([...running].map((p) => p.stop(3000)));
  for (const w of watchdogs) w.kill('SIGKILL');
  for (const dir of directories) rmSync(dir, { recursive: true, force: true });
  directories.clear();
}

function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', killAllSync);
  const signals = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
  for (const [signal, code] of Object.entries(signals)) {
    process.once(signal, () => {
      // A second signal while stopping falls through to the default action (immediate exit),
      // which still runs the synchronous 'exit' hook.
      void stopAll().finally(() => process.exit(code));
    });
  }
}

/**
 * Starts a detached shell that outlives Node only long enough to clean up after it: it polls the
 * Node PID every second and, once Node is gone without having stopped it, SIGKILLs `pids()` and
 * removes `dir`. Returns a function that updates the PID list (children are added as they start).
 */
export function startWatchdog(dir: string): { update(pids: readonly number[]): void; stop(): void } {
  let child: ChildProcess | undefined;
  const launch = (pids: readonly number[]) => {
    const script = `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; ` +
      (pids.length > 0 ? `kill -9 ${pids.join(' ')} 2>/dev/null; ` : '') +
      `rm -rf '${dir.replace(/'/g, "'\\''")}'`;
    const next = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' });
    next.unref();
    watchdogs.add(next);
    return next;
  };
  const stopCurrent = () => {
    if (child) {
      child.kill('SIGKILL');
      watchdogs.delete(child);
      child = undefined;
    }
  };
  return {
    update(pids) {
      // Start the replacement first so there is never a moment without a watchdog.
      const next = launch(pids);
      stopCurrent();
      child = next;
    },
    stop: stopCurrent,
  };
}
