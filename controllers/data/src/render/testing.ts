// Fixtures for the renderer's tests: the objects of upstream's test suite
// (namespace baremetalns-testns, research §5.6) and a context builder.

import type { Machine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Metal3Data, Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { BareMetalHost, BareMetalHostStatusHardwareNics } from '@metal3-ts/generated/metal3.io/v1alpha1';
import type { PoolAllocation, RenderContext } from './types.ts';

export const NAMESPACE = 'baremetalns-testns';

export interface ContextOptions {
  index?: number;
  pools?: Record<string, PoolAllocation>;
  nics?: BareMetalHostStatusHardwareNics[] | null;
  m3m?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  machine?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  host?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  /** The host's spec.bootMACAddress (B2-21); unset when absent. */
  bootMAC?: string;
  providerID?: string;
}

export function renderContext(options: ContextOptions = {}): RenderContext {
  const data: Metal3Data = {
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
    kind: 'Metal3Data',
    metadata: { name: 'abc-0', namespace: NAMESPACE },
    spec: { index: options.index ?? 0, claim: { name: 'claim' }, template: { name: 'abc' } },
  };
  const metal3Machine: Metal3Machine = {
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
    kind: 'Metal3Machine',
    metadata: { name: 'baremetal-testmetal3machine', namespace: NAMESPACE, ...options.m3m },
  };
  const machine = {
    apiVersion: 'cluster.x-k8s.io/v1beta1',
    kind: 'Machine',
    metadata: { name: 'baremetal-testmachine', namespace: NAMESPACE, ...options.machine },
    spec: { clusterName: 'cluster' },
  } as Machine;
  const host = {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: { name: 'baremetal-testbaremetalhost', namespace: NAMESPACE, ...options.host },
    ...(options.bootMAC === undefined ? {} : { spec: { online: true, bootMACAddress: options.bootMAC } }),
    ...(options.nics === null ? {} : { status: { hardware: { nics: options.nics ?? [] } } }),
  } as BareMetalHost;
  const pools = options.pools ?? {};
  return {
    data,
    metal3Machine,
    machine,
    host,
    allocationFor: (ref) => (Object.hasOwn(pools, ref.name) ? pools[ref.name] : undefined),
    ...(options.providerID === undefined ? {} : { providerID: options.providerID }),
  };
}

/** Runs `fn` and returns the error it throws (fails the test when it does not throw). */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected an error, none was thrown');
}
