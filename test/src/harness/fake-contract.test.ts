// The fake apiserver's contract suite on the real kube-apiserver: the same cases
// shared/src/testing/fake-client/fake-client.test.ts runs on the fake. Both green is what lets a
// phase-level test trust the fake (docs/harness.md, "The fake apiserver").
import { suite } from 'uvu';
import { Client, Transport } from '@metal3-ts/generated';
import { registerContract } from '@metal3-ts/shared/testing/fake-client/contract/index';
import { freshNamespace, withSharedEnv } from '../envtest/suite.ts';

const test = suite('fake apiserver contract (real apiserver)');
const env = withSharedEnv(test);
let client: Client | undefined;

test.before(() => {
  client = new Client(Transport.fromConnection(env().admin));
});
test.after(() => client?.transport.close());

registerContract(test, () => {
  if (!client) throw new Error('the client is made in before()');
  return { client, namespace: () => freshNamespace(env().admin.client, 'contract') };
});
test.run();
