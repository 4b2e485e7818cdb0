// The fake apiserver for phase-level tests: `fakeCluster()` gives a generated Client over an
// in-memory server that passes the contract suite (./contract) the real kube-apiserver passes. What
// it promises and what it does not (no admission, schema, CEL, defaulting, garbage collector or
// server-side apply) is in docs/harness.md, "The fake apiserver".
//
// @example
// ```ts
// import { fakeCluster } from '@metal3-ts/shared/testing/fake-client/index';
// import { ConfigMapResource, newConfigMap } from '@metal3-ts/generated/core/v1';
//
// const { client } = fakeCluster();
// const maps = client.api(ConfigMapResource, 'ns');
// const made = await maps.create(newConfigMap({ metadata: { name: 'c' }, data: { a: '1' } }));
// console.assert(made.metadata.uid !== undefined);
// ```
export { FakeApiServer, type FakeApiServerOptions, type FakeRequest } from './server.ts';
export { type FakeCluster, fakeCluster, fakeTransport } from './transport.ts';
export { type ContractCase, contractCases, type ContractTarget, registerContract } from './contract/index.ts';
