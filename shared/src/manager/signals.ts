// Process signals and exit as a port, so the shutdown sequence can be driven by tests and the core
// never touches the process directly. The first SIGTERM/SIGINT asks for a graceful stop (an aborted
// signal); a second one means "now": the process exits at once, as controller-runtime's handler does.
import process from 'node:process';
import type { Logger } from '../log/logger.ts';

export type ShutdownSignalName = 'SIGTERM' | 'SIGINT';

export interface ProcessPort {
  /** Calls `handler` on every SIGTERM or SIGINT; returns a function that unsubscribes. */
  onShutdownSignal(handler: (name: ShutdownSignalName) => void): () => void;
  /** Ends the process with `code` (never returns in production). */
  exit(code: number): void;
}

/** The real process, under Node and Deno (both implement `process.on('SIGTERM')`). */
export const nodeProcess: ProcessPort = {
  onShutdownSignal(handler) {
    const onTerm = () => handler('SIGTERM');
    const onInt = () => handler('SIGINT');
    process.on('SIGTERM', onTerm);
    process.on('SIGINT', onInt);
    return () => {
      process.off('SIGTERM', onTerm);
      process.off('SIGINT', onInt);
    };
  },
  exit(code) {
    process.exit(code);
  },
};

export class ShutdownRequested extends Error {
  override name = 'ShutdownRequested';
  readonly signalName: ShutdownSignalName;
  constructor(signalName: ShutdownSignalName) {
    super(`received ${signalName}`);
    this.signalName = signalName;
  }
}

/**
 * An AbortSignal that aborts on the first shutdown signal (reason: ShutdownRequested); the second
 * signal exits with code 1 without waiting. `dispose` unsubscribes once the process is done.
 */
export function shutdownOnSignals(port: ProcessPort, log: Logger): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const dispose = port.onShutdownSignal((name) => {
    if (!controller.signal.aborted) {
      log.info('shutdown requested: stopping gracefully (send the signal again to exit at once)', { signal: name });
      controller.abort(new ShutdownRequested(name));
      return;
    }
    log.warn('second shutdown signal: exiting without waiting', { signal: name });
    port.exit(1);
  });
  return { signal: controller.signal, dispose };
}
