// Our CRDs against the pinned upstream CAPM3 v1.12.7 ones: same accepted and defaulted objects (schema
// structure), same names, our own prose, and every webhook rule in place.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { resolveUpstream } from '@metal3-ts/codegen/upstream';
import { parseAllDocuments } from 'yaml';
import {
  descriptionsOf, loadIntendedDifferences, loadOurCrds, loadUpstreamCrds, ourKinds, versionOf, walkSchema, type Crd,
} from './crds.ts';
import { diffCrds, keyOf, nodeCount } from './schema-diff.ts';
import { expectedShortNames, webhookRules } from './webhook-rules.ts';

const ours = loadOurCrds();
const upstream = await loadUpstreamCrds();
const intended = loadIntendedDifferences();
const show = (v: unknown) => JSON.stringify(v) ?? 'undefined';

function our(kind: string): Crd {
  const file = ours.get(kind);
  if (!file) throw new Error(`no CRD file for ${kind} in crds/`);
  return file.crd;
}

test('one CRD file per kind, named <group>_<plural>.yaml, nothing else', () => {
  assert.equal([...ours.keys()].sort(), [...ourKinds].sort());
  for (const [kind, { file, crd }] of ours) {
    assert.is(file, `infrastructure.cluster.x-k8s.io_${crd.spec.names.plural}.yaml`, kind);
    assert.is(crd.metadata.name, `${crd.spec.names.plural}.infrastructure.cluster.x-k8s.io`, kind);
  }
});

test('only v1beta1, served and the storage version', () => {
  for (const kind of ourKinds) {
    assert.equal(our(kind).spec.versions.map((v) => [v.name, v.served, v.storage]), [['v1beta1', true, true]], kind);
  }
});

test('every CRD carries the Cluster API contract label cluster.x-k8s.io/v1beta1: v1beta1', () => {
  for (const kind of ourKinds) assert.is(our(kind).metadata.labels?.['cluster.x-k8s.io/v1beta1'], 'v1beta1', kind);
});

test('short names and the cluster-api category as in research §0.1', () => {
  for (const kind of ourKinds) {
    assert.equal(our(kind).spec.names.shortNames, expectedShortNames[kind], kind);
    assert.equal(our(kind).spec.names.categories, ['cluster-api'], kind);
  }
});

test('v1beta1 schemas match upstream structurally, apart from the intended differences', () => {
  const listed = new Set(intended.map(keyOf));
  const unlisted: string[] = [];
  for (const kind of ourKinds) {
    const theirs = upstream.get(kind);
    if (!theirs) throw new Error(`upstream has no ${kind}`);
    for (const d of diffCrds(our(kind), theirs)) {
      if (!listed.has(keyOf(d))) unlisted.push(`${keyOf(d)}: ours ${show(d.ours)}, upstream ${show(d.upstream)}`);
    }
  }
  assert.equal(unlisted, [], `unlisted differences (fix the CRD or add them to crds/intended-differences.yaml):\n${unlisted.join('\n')}`);
});

test('every intended difference still exists and gives a reason', () => {
  const actual = new Set(ourKinds.flatMap((kind) => diffCrds(our(kind), upstream.get(kind) as Crd).map(keyOf)));
  for (const entry of intended) {
    assert.ok(entry.reason?.trim(), `${keyOf(entry)} has no reason`);
    assert.ok(actual.has(keyOf(entry)), `stale entry in crds/intended-differences.yaml: ${keyOf(entry)}`);
  }
});

test('the comparison walks the whole upstream tree', () => {
  // Guards against a walk that silently stops early (e.g. treating a property named `type` as a keyword).
  const theirs = versionOf(upstream.get('Metal3DataTemplate') as Crd)?.schema.openAPIV3Schema;
  const mine = versionOf(our('Metal3DataTemplate'))?.schema.openAPIV3Schema;
  assert.ok(theirs && mine);
  assert.ok(nodeCount(theirs) > 200, `only ${nodeCount(theirs)} nodes`);
  // Properties we add on purpose (intended-differences.yaml) are the only extra nodes on our side.
  const added = intended
    .filter((e) => e.kind === 'Metal3DataTemplate' && e.keyword === 'property')
    .map((e) => [...walkSchema(mine)].find(([path]) => path === e.path)?.[1])
    .reduce((n, node) => n + (node ? nodeCount(node) : 0), 0);
  assert.is(nodeCount(mine) - added, nodeCount(theirs));
});

test('no description is, or contains 40 characters of, an upstream description', async () => {
  const normalise = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();
  const whole = new Set<string>();
  const windows = new Set<string>();
  for (const source of await resolveUpstream()) {
    for (const doc of parseAllDocuments(source.text)) {
      const crd = doc.toJS() as Crd | null;
      if (crd?.kind !== 'CustomResourceDefinition') continue;
      for (const { text } of descriptionsOf(crd)) {
        const t = normalise(text);
        whole.add(t);
        for (let i = 0; i + 40 <= t.length; i++) windows.add(t.slice(i, i + 40));
      }
    }
  }
  const copied: string[] = [];
  for (const kind of ourKinds) {
    for (const { where, text } of descriptionsOf(our(kind))) {
      const t = normalise(text);
      let hit = whole.has(t) ? t : undefined;
      for (let i = 0; !hit && i + 40 <= t.length; i++) if (windows.has(t.slice(i, i + 40))) hit = t.slice(i, i + 40);
      if (hit) copied.push(`${kind} ${where}: "${hit}"`);
    }
  }
  assert.equal(copied, [], `upstream prose found:\n${copied.join('\n')}`);
});

test('every kind, spec and status has a description of ours', () => {
  for (const kind of ourKinds) {
    const root = versionOf(our(kind))?.schema.openAPIV3Schema;
    assert.ok(root?.description, `${kind} root`);
    for (const part of ['spec', 'status'] as const) {
      const node = root.properties?.[part];
      if (node) assert.ok(node.description, `${kind} .${part}`);
    }
  }
});

for (const id of [...new Set(webhookRules.map((r) => r.id))]) {
  test(`${id} rules sit on the schema nodes listed in webhook-rules.ts`, () => {
    for (const rule of webhookRules.filter((r) => r.id === id)) {
      const root = versionOf(our(rule.kind))?.schema.openAPIV3Schema;
      assert.ok(root);
      const node = [...walkSchema(root)].find(([path]) => path === rule.node)?.[1];
      assert.ok(node, `${rule.kind} has no node ${rule.node}`);
      const found = (node['x-kubernetes-validations'] ?? []).filter((v) => (v.message ?? v.messageExpression ?? '').includes(rule.message));
      assert.is(found.length, 1, `${rule.kind} ${rule.node || '(root)'}: "${rule.message}"`);
      const v = found[0];
      const usesOld = /\boldSelf\b/.test(v?.rule ?? '');
      assert.is(usesOld, rule.when !== 'always', `${rule.kind} "${rule.message}" should run ${rule.when}`);
      assert.is(v?.optionalOldSelf === true, rule.when === 'create', `${rule.kind} "${rule.message}" optionalOldSelf`);
    }
  });
}

test('W-2 cloud flags get no static default (a default on one would conflict with the other, W-3)', () => {
  const spec = versionOf(our('Metal3Cluster'))?.schema.openAPIV3Schema.properties?.['spec'];
  assert.is(spec?.properties?.['cloudProviderEnabled']?.default, undefined);
  assert.is(spec?.properties?.['noCloudProvider']?.default, undefined);
  assert.is(spec?.properties?.['controlPlaneEndpoint']?.properties?.['port']?.default, undefined);
});

test('W-14 CRD-level defaults are kept: nodeReuse false, index step 1, link mtu 1500', () => {
  const mt = versionOf(our('Metal3MachineTemplate'))?.schema.openAPIV3Schema;
  const dt = versionOf(our('Metal3DataTemplate'))?.schema.openAPIV3Schema;
  assert.ok(mt && dt);
  const at = (root: typeof mt, path: string) => [...walkSchema(root)].find(([p]) => p === path)?.[1];
  assert.is(at(mt, '.spec.nodeReuse')?.default, false);
  assert.is(at(dt, '.spec.metaData.indexes[].step')?.default, 1);
  for (const link of ['ethernets', 'bonds', 'vlans']) assert.is(at(dt, `.spec.networkData.links.${link}[].mtu`)?.default, 1500);
});

test.run();
