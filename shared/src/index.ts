// @metal3-ts/shared: the reconcile harness. Import subpaths (`@metal3-ts/shared/cache/types`) or this
// curated entry point.
export * from './reconcile/reconcile.ts';
export * from './log/logger.ts';
export * from './clock/clock.ts';
export * from './metrics/registry.ts';
export * from './cache/types.ts';
