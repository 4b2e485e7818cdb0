// @metal3-ts/generated: typed Kubernetes APIs for metal3-ts. Kinds live in one module per
// group/version (e.g. `@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1`); this entry point
// carries the shared runtime: object-model types, descriptors, the registry and the typed client.
export * from './runtime/meta.ts';
export * from './runtime/resource.ts';
export { registry } from './registry.ts';
export * from './runtime/errors.ts';
export * from './runtime/deadline.ts';
export * from './runtime/transport.ts';
export * from './runtime/client.ts';
