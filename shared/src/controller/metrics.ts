// controller-runtime's controller metrics, names, help, labels and buckets verbatim, so CAPM3
// dashboards and alerts work unchanged (ecosystem.md 5.1). Several controllers share each family and
// tell themselves apart by the `controller` label.
import type { Registry } from '../metrics/registry.ts';

/** The `result` label values of `controller_runtime_reconcile_total`. */
export type ReconcileResultLabel = 'success' | 'error' | 'requeue' | 'requeue_after';

export const RECONCILE_TIME_BUCKETS: readonly number[] = [
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.15,
  0.2,
  0.25,
  0.3,
  0.35,
  0.4,
  0.45,
  0.5,
  0.6,
  0.7,
  0.8,
  0.9,
  1.0,
  1.25,
  1.5,
  1.75,
  2.0,
  2.5,
  3.0,
  3.5,
  4.0,
  4.5,
  5,
  6,
  7,
  8,
  9,
  10,
  15,
  20,
  25,
  30,
  40,
  50,
  60,
];

export interface ControllerMetrics {
  reconciled(result: ReconcileResultLabel): void;
  /** Any failed reconcile, terminal or not. */
  error(): void;
  terminalError(): void;
  panic(): void;
  timeout(): void;
  reconcileTime(seconds: number): void;
  activeWorkers(delta: 1 | -1): void;
}

export function controllerMetrics(registry: Registry, controller: string, maxConcurrentReconciles: number): ControllerMetrics {
  const labels = { controller };
  const total = registry.counter('controller_runtime_reconcile_total', 'Total number of reconciliations per controller', [
    'controller',
    'result',
  ]);
  const errors = registry.counter('controller_runtime_reconcile_errors_total', 'Total number of reconciliation errors per controller', [
    'controller',
  ]);
  const terminal = registry.counter(
    'controller_runtime_terminal_reconcile_errors_total',
    'Total number of terminal reconciliation errors per controller',
    ['controller'],
  );
  const panics = registry.counter('controller_runtime_reconcile_panics_total', 'Total number of reconciliation panics per controller', [
    'controller',
  ]);
  const timeouts = registry.counter(
    'controller_runtime_reconcile_timeouts_total',
    'Total number of reconciliation timeouts per controller',
    ['controller'],
  );
  const time = registry.histogram(
    'controller_runtime_reconcile_time_seconds',
    'Length of time per reconciliation per controller',
    ['controller'],
    RECONCILE_TIME_BUCKETS,
  );
  const workers = registry.gauge(
    'controller_runtime_max_concurrent_reconciles',
    'Maximum number of concurrent reconciles per controller',
    ['controller'],
  );
  const active = registry.gauge('controller_runtime_active_workers', 'Number of currently used workers per controller', ['controller']);

  // Pre-initialised as controller-runtime's initMetrics does: rate() over a series that appears only
  // on the first error misses that error.
  for (const result of ['success', 'error', 'requeue', 'requeue_after'] as const) total.touch({ controller, result });
  for (const c of [errors, terminal, panics, timeouts]) c.touch(labels);
  workers.set(labels, maxConcurrentReconciles);
  active.set(labels, 0);

  return {
    reconciled: (result) => total.inc({ controller, result }),
    error: () => errors.inc(labels),
    terminalError: () => terminal.inc(labels),
    panic: () => panics.inc(labels),
    timeout: () => timeouts.inc(labels),
    reconcileTime: (seconds) => time.observe(labels, seconds),
    activeWorkers: (delta) => active.inc(labels, delta),
  };
}
