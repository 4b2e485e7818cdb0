// Typed errors of the test environment, so callers (and the human entry point) can tell "install Go"
// from "the apiserver died" from "the apiserver said 403" without parsing messages.

export class EnvtestError extends Error {
  override readonly name: string = 'EnvtestError';
}

/** The binaries are missing and cannot be built (no Go, or the build failed). */
export class BinariesError extends EnvtestError {
  override readonly name = 'BinariesError';
}

/** A child process exited before it was ready, or could not be spawned. */
export class ProcessExitError extends EnvtestError {
  override readonly name = 'ProcessExitError';
  readonly process: string;
  readonly code: number | null;
  readonly signal: string | null;
  readonly logTail: string;
  constructor(process: string, code: number | null, signal: string | null, logTail: string) {
    super(`${process} exited early (code ${code ?? '-'}, signal ${signal ?? '-'}); last log lines:\n${logTail}`);
    this.process = process;
    this.code = code;
    this.signal = signal;
    this.logTail = logTail;
  }
  /** True when the log says a port was taken between choosing it and binding it. */
  get portRace(): boolean {
    return /address already in use/i.test(this.logTail);
  }
}

/** Something did not become ready in time. */
export class EnvtestTimeoutError extends EnvtestError {
  override readonly name = 'EnvtestTimeoutError';
}

/** A Kubernetes API response with a non-2xx status: the generated client's typed error, re-exported. */
export { ApiError } from '@metal3-ts/generated';
