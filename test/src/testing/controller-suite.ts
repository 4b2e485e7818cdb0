// The hooks every real-apiserver controller test file repeats, once: a uvu suite on the shared test
// environment, the cluster admin's client (made before the tests, closed after them), and the
// controllers a test started, stopped after each test whatever its outcome, so the next test starts
// clean and a failed one does not leave workers writing into the next one's objects.
import { suite, type Test } from 'uvu';
import { Client, Transport } from '@metal3-ts/generated';
import type { TestEnv } from '../envtest/env.ts';
import { withSharedEnv } from '../envtest/suite.ts';

export interface ControllerSuite {
  readonly test: Test;
  readonly env: () => TestEnv;
  /** The cluster admin's client (inside tests only). */
  readonly admin: () => Client;
  /** Stops `running` after the current test; returns it. */
  track<T extends { stop(): Promise<void> }>(running: T): T;
}

export function controllerSuite(title: string): ControllerSuite {
  const test = suite(title);
  const env = withSharedEnv(test);
  let admin: Client | undefined;
  const started: { stop(): Promise<void> }[] = [];
  test.before(() => {
    admin = new Client(Transport.fromConnection(env().admin));
  });
  test.after(() => admin?.transport.close());
  test.after.each(async () => {
    const stopping = started.splice(0);
    await Promise.all(stopping.map((c) => c.stop()));
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
  };
}
