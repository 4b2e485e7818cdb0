// What a contract case runs against, and the small assertions every case shares. A target is
// either the fake (a unit test, milliseconds) or the real test apiserver (a real-apiserver test):
// the same cases passing on both is what licenses the fake for phase-level tests.
import * as assert from 'uvu/assert';
import { ApiError, type Client } from '@metal3-ts/generated';
import { type Metal3Machine, newMetal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';

export interface ContractTarget {
  readonly client: Client;
  /** A namespace no other case uses (created on the real apiserver; any name will do on the fake). */
  namespace(): Promise<string>;
}

export interface ContractCase {
  /** Says what the apiserver does, in the words of the list of semantics. */
  readonly name: string;
  run(target: ContractTarget): Promise<void>;
}

/** Awaits `fn`, asserting it fails with an ApiError of class `kind` and HTTP `code`; returns it. */
export async function refused<E extends ApiError>(fn: () => Promise<unknown>, kind: abstract new (...args: never[]) => E, code: number): Promise<E> {
  try {
    await fn();
  } catch (error) {
    assert.instance(error, kind, `expected ${kind.name}, got ${String(error)}`);
    assert.is((error as ApiError).code, code, String(error));
    return error as E;
  }
  assert.unreachable(`expected ${kind.name} (${code}), the request succeeded`);
  throw new Error('unreachable');
}

/** A Metal3Machine (a custom resource with a status subresource) that passes the CRD's schema. */
export const machine = (name: string, labels?: Record<string, string>): Metal3Machine =>
  newMetal3Machine({
    metadata: { name, ...(labels ? { labels } : {}) },
    spec: { image: { url: 'http://172.22.0.1/images/node.img', checksum: 'http://172.22.0.1/images/node.img.sha256sum', format: 'raw' } },
  });
