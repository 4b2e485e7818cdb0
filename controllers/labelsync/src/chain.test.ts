import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Cluster, Machine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Metal3Cluster, Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { type ChainLookup, decide } from './chain.ts';

const test = suite('label-sync chain: host → Metal3Machine → Machine → Node, Cluster → Metal3Cluster');

const NS = 'ns';
const host = (over: Partial<BareMetalHost['spec']> = {}, annotations?: Record<string, string>): BareMetalHost => ({
  apiVersion: 'metal3.io/v1alpha1',
  kind: 'BareMetalHost',
  metadata: { name: 'host-0', namespace: NS, ...(annotations ? { annotations } : {}) },
  spec: { consumerRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: 'm3m-0', namespace: NS }, ...over },
} as BareMetalHost);
const m3m: Metal3Machine = {
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
  kind: 'Metal3Machine',
  metadata: { name: 'm3m-0', namespace: NS, ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Machine', name: 'machine-0', uid: 'u' }] },
} as Metal3Machine;
const machine = (nodeRef?: string): Machine => ({
  apiVersion: 'cluster.x-k8s.io/v1beta1',
  kind: 'Machine',
  metadata: { name: 'machine-0', namespace: NS },
  spec: { clusterName: 'c1', bootstrap: {}, infrastructureRef: { kind: 'Metal3Machine', name: 'm3m-0' } },
  ...(nodeRef ? { status: { nodeRef: { name: nodeRef } } } : {}),
} as Machine);
const cluster = (paused = false): Cluster => ({
  apiVersion: 'cluster.x-k8s.io/v1beta1',
  kind: 'Cluster',
  metadata: { name: 'c1', namespace: NS },
  spec: { infrastructureRef: { kind: 'Metal3Cluster', name: 'm3c' }, ...(paused ? { paused: true } : {}) },
} as Cluster);
const m3c = (annotations?: Record<string, string>): Metal3Cluster => ({
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
  kind: 'Metal3Cluster',
  metadata: { name: 'm3c', namespace: NS, ...(annotations ? { annotations } : {}) },
} as Metal3Cluster);

interface World {
  m3m?: Metal3Machine;
  machine?: Machine;
  cluster?: Cluster;
  m3c?: Metal3Cluster;
}
const lookup = (w: World): ChainLookup => ({
  metal3Machine: (ns, name) => (w.m3m?.metadata.namespace === ns && w.m3m.metadata.name === name ? w.m3m : undefined),
  machine: (ns, name) => (w.machine?.metadata.namespace === ns && w.machine.metadata.name === name ? w.machine : undefined),
  cluster: (ns, name) => (w.cluster?.metadata.namespace === ns && w.cluster.metadata.name === name ? w.cluster : undefined),
  metal3Cluster: (ns, name) => (w.m3c?.metadata.namespace === ns && w.m3c.metadata.name === name ? w.m3c : undefined),
});
const PREFIXES = { 'metal3.io/metal3-label-sync-prefixes': 'my.org, team.example.com' };
const full: World = { m3m, machine: machine('node-0'), cluster: cluster(), m3c: m3c(PREFIXES) };

test('LS-3, LS-4: the whole chain gives the Node, the workload cluster and the prefixes', () => {
  assert.equal(decide(host(), lookup(full)), {
    kind: 'Sync',
    cluster: { namespace: NS, name: 'c1' },
    nodeName: 'node-0',
    prefixes: new Set(['my.org', 'team.example.com']),
  });
});

test('LS-2, LS-3, LS-4: every missing or paused link is a wait (its watch ends it), never an error', () => {
  const cases: [string, BareMetalHost, World, RegExp][] = [
    ['host paused (any value)', host({}, { 'baremetalhost.metal3.io/paused': '' }), full, /host is paused/],
    ['no consumer', host({ consumerRef: undefined } as Partial<BareMetalHost['spec']>), full, /not consumed/],
    [
      'consumer of another kind',
      host({ consumerRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Other', name: 'm3m-0' } }),
      full,
      /not consumed/,
    ],
    ['consumer of another group', host({ consumerRef: { apiVersion: 'example.com/v1', kind: 'Metal3Machine', name: 'm3m-0' } }), full, /not consumed/],
    ['Metal3Machine missing', host(), { ...full, m3m: undefined }, /Metal3Machine m3m-0 not found/],
    ['no owner Machine', host(), { ...full, machine: undefined }, /owner Machine/],
    ['no nodeRef', host(), { ...full, machine: machine() }, /no nodeRef/],
    ['Cluster missing', host(), { ...full, cluster: undefined }, /Cluster c1 not found/],
    ['Metal3Cluster missing', host(), { ...full, m3c: undefined }, /Metal3Cluster m3c not found/],
    ['Cluster paused', host(), { ...full, cluster: cluster(true) }, /paused/],
    ['Metal3Cluster paused', host(), { ...full, m3c: m3c({ ...PREFIXES, 'cluster.x-k8s.io/paused': '' }) }, /paused/],
    ['no prefix annotation (L-6: no periodic requeue)', host(), { ...full, m3c: m3c() }, /no metal3\.io\/metal3-label-sync-prefixes annotation/],
  ];
  for (const [name, h, world, why] of cases) {
    const decision = decide(h, lookup(world));
    assert.is(decision.kind, 'Wait', name);
    if (decision.kind === 'Wait') assert.match(decision.why, why, name);
  }
});

test('LS-4: an invalid prefix is an outcome naming it, not a throw', () => {
  const decision = decide(host(), lookup({ ...full, m3c: m3c({ 'metal3.io/metal3-label-sync-prefixes': 'my.org,Bad_Prefix' }) }));
  assert.is(decision.kind, 'InvalidPrefix');
  if (decision.kind === 'InvalidPrefix') {
    assert.is(decision.prefix, 'Bad_Prefix');
    assert.match(decision.message, /^invalid prefix \(Bad_Prefix\)/);
  }
});

test.run();
