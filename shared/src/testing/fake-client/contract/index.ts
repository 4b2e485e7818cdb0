// The contract suite: what the fake apiserver promises, stated as cases any Client must pass. The
// unit test runs them on the fake (milliseconds, Node and Deno); test/src/harness/fake-contract.test.ts
// runs the same cases on the real kube-apiserver. A semantic the fake adds needs a case here first.
import type { Test } from 'uvu';
import { lifecycleCases } from './lifecycle.ts';
import { readCases } from './reads.ts';
import type { ContractCase, ContractTarget } from './target.ts';
import { writeCases } from './writes.ts';

export type { ContractCase, ContractTarget } from './target.ts';

export const contractCases: readonly ContractCase[] = [...writeCases, ...lifecycleCases, ...readCases];

/** Registers every case on `test`; `target` is called inside each test (after the suite's before hooks). */
export function registerContract(test: Test, target: () => ContractTarget): void {
  for (const c of contractCases) test(c.name, () => c.run(target()));
}
