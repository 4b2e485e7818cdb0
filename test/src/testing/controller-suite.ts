// The hooks every real-apiserver controller test file repeats, once: a uvu suite on the shared test
// environment, the cluster admin's client (made before the tests, closed after them), and the
// controllers a test started, stopped after each test whatever its outcome, so the next test starts
// clean and a failed one does not leave workers writing into the next one's objects; then the checks
// every test of the file makes on a stopped controller (no 403, no failed reconcile…), if any; and,
// when asked, the real Cluster API managers beside them (testing/cluster-api.ts).
import { suite, type Test } from 'uvu';
import { Client, Transport } from '@metal3-ts/generated';
import type { TestEnv } from '../envtest/env.ts';
import { freshNamespace, withSharedEnv } from '../envtest/suite.ts';
import type { ClusterApi } from '../capi/managers.ts';
import { withSharedClusterApi } from './cluster-api.ts';

interface Stoppable {
  stop(): Promise<void>;
}

export interface ControllerSuiteOptions<R extends Stoppable> {
  /** Assertions on each controller once stopped after a test (they fail that test). */
  readonly afterStop?: (stopped: R) => void;
  /** Run the real Cluster API managers on the shared environment (testing/cluster-api.ts). */
  readonly clusterApi?: boolean;
}

export interface ControllerSuite<R extends Stoppable> {
  readonly test: Test;
  readonly env: () => TestEnv;
  /** The cluster admin's client (inside tests only). */
  readonly admin: () => Client;
  /** Stops `running` after the current test (then `afterStop`); returns it. */
  track<T extends R>(running: T): T;
  /** A fresh namespace named from `prefix` (inside tests only). */
  namespace(prefix: string): Promise<string>;
  /** The real Cluster API managers (inside tests only, with the `clusterApi` option). */
  readonly capi: () => ClusterApi;
}

export function controllerSuite<R extends Stoppable = Stoppable>(title: string, options: ControllerSuiteOptions<R> = {}): ControllerSuite<R> {
  const test = suite(title);
  const env = withSharedEnv(test);
  const capi = options.clusterApi ? withSharedClusterApi(test, env) : () => {
    throw new Error(`${title}: the real Cluster API runs only with controllerSuite's clusterApi option`);
  };
  let admin: Client | undefined;
  const started: R[] = [];
  test.before(() => {
    admin = new Client(Transport.fromConnection(env().admin));
  });
  test.after(() => admin?.transport.close());
  test.after.each(async () => {
    const stopping = started.splice(0);
    await Promise.all(stopping.map((c) => c.stop()));
    for (const stopped of stopping) options.afterStop?.(stopped);
  });
  return {
    test,
    env,
    admin: () => {
      if (!admin) throw new Error('the admin client exists inside tests only');
      return admin;
    },
    track(running) {
      started.push(running);
      return running;
    },
    namespace: (prefix) => freshNamespace(env().admin.client, prefix),
    capi,
  };
}
