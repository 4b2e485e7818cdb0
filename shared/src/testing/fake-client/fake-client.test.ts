// The contract suite on the fake apiserver: the same cases test/src/harness/fake-contract.test.ts
// runs on the real kube-apiserver, here in milliseconds and under Deno too.
import { suite } from 'uvu';
import { registerContract } from './contract/index.ts';
import { fakeCluster } from './transport.ts';

const test = suite('fake apiserver contract (fake)');
let namespaces = 0;
registerContract(test, () => ({ client: fakeCluster().client, namespace: () => Promise.resolve(`ns-${++namespaces}`) }));
test.run();
