// @metal3-ts/shared: the reconcile harness every metal3-ts controller uses. This entry point gathers
// the pieces a controller package wires together; each also has its own subpath
// (`@metal3-ts/shared/cache/informer-factory`, ...). The BareMetalHost driver is its own package:
// `@metal3-ts/baremetal`.
//
// Pipeline: client (rate limit, metrics) → informers (list+watch → frozen, indexed store, read your
// own writes) → event sources (predicates, map functions) → work queue (coalescing, backoff) →
// controller (one outcome switch) → reconcile (scope, phases, patch helper on exit) — run by the
// manager (leader election, health, metrics, graceful shutdown).
export * from './reconcile/reconcile.ts';
export * from './log/logger.ts';
export * from './clock/clock.ts';
export * from './metrics/registry.ts';
export * from './cache/types.ts';
export { InformerFactory, type InformerFactoryOptions } from './cache/informer-factory.ts';
export { WriteThroughClient } from './cache/write-through.ts';
export { byLabel, byOwnerUid, labelIndexName, OWNER_UID_INDEX } from './cache/indexers.ts';
export { type CacheTransform, keepEverything, stripManagedFields } from './cache/transform.ts';
export { type ClientOptions, instrument, newClient } from './client/client.ts';
export { type RequestCount, RequestCounter } from './client/metrics.ts';
export { inClusterConnection, KubeConfigError, loadKubeConfigFile, parseKubeConfig } from './client/kubeconfig.ts';
export { ControllerBuilder, ControllerBuildError, controllerFor } from './controller/builder.ts';
export { Controller } from './controller/controller.ts';
export { describeRefusal, isRefusedCode, type Refusal, refusalOf, requestOf } from './controller/refusal.ts';
export { resourceName } from './meta/resource-name.ts';
export { type DnsNameRules, isDnsName, isIP, isIPv4, isIPv6, MAX_DNS_NAME_LENGTH } from './meta/dns.ts';
export { runStep, StepError } from './controller/step-error.ts';
export { isStale, isStaleOrGuardFailed, RetryExhaustedError, retryOnConflict, type RetryOnConflictOptions } from './controller/retry-on-conflict.ts';
export * from './controller/predicates.ts';
export { enqueueFromMap, enqueueOwner, enqueueSelf, type MapFn } from './controller/handlers.ts';
export { PatchError, PatchHelper, type PatchOptions } from './patch/patch-helper.ts';
export * from './conditions/get.ts';
export * from './conditions/set.ts';
export * from './conditions/delete.ts';
export * from './conditions/summary.ts';
export * from './conditions/types.ts';
export * from './conditions/v1beta2/get.ts';
export * from './conditions/v1beta2/set.ts';
export * from './conditions/v1beta2/summary.ts';
export * from './meta/finalizers.ts';
export * from './meta/ensure-finalizer.ts';
export * from './meta/owner-references.ts';
export * from './meta/cluster-api-names.ts';
export { hasPausedAnnotation, isPaused } from './meta/paused.ts';
export { isExternallyManaged } from './meta/externally-managed.ts';
export { ClusterCache } from './workload/cluster-cache.ts';
export * from './workload/errors.ts';
export { Manager } from './manager/manager.ts';
export type { Runnable } from './manager/runnable.ts';
export { LeaderElector } from './leader/leader-elector.ts';
export { leaseLock } from './leader/lease-lock.ts';
export { EventRecorder } from './events/recorder.ts';
export { runMain } from './entry/run-main.ts';
