// Our CRDs against the pinned upstream CAPM3 releases of references.ts: same names, and for each compared
// API version the same accepted and defaulted objects (schema structure), apart from the differences
// crds/intended-differences.yaml lists with a reason.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadIntendedDifferences, loadOurCrds, ourKinds, versionOf, walkSchema, type Crd, type IntendedDifference } from './crds.ts';
import { loadReferenceCrds, references } from './references.ts';
import { diffCrds, keyOf, nodeCount, type Difference } from './schema-diff.ts';
import { expectedShortNames } from './webhook-rules.ts';

const ours = loadOurCrds();
const intended = loadIntendedDifferences();
const upstream = new Map(await Promise.all(references.map(async (r) => [r.release, await loadReferenceCrds(r.release)] as const)));
const show = (v: unknown) => JSON.stringify(v) ?? 'undefined';

function our(kind: string): Crd {
  const file = ours.get(kind);
  if (!file) throw new Error(`no CRD file for ${kind} in crds/`);
  return file.crd;
}

/** Every difference from one release, over the versions compared with it (CRD-level ones once). */
function differences(release: string, versions: readonly string[]): Map<string, Difference> {
  const out = new Map<string, Difference>();
  for (const kind of ourKinds) {
    const theirs = upstream.get(release)?.get(kind);
    if (!theirs) throw new Error(`CAPM3 ${release} has no ${kind}`);
    for (const version of versions) for (const d of diffCrds(our(kind), theirs, version)) out.set(keyOf(d), d);
  }
  return out;
}

/** Whether an intended difference applies to a release (and one of the versions compared with it). */
const appliesTo = (entry: IntendedDifference, release: string, versions: readonly string[]) =>
  (entry.against ?? [release]).includes(release) && (!entry.version || versions.includes(entry.version));

test('one CRD file per kind, named <group>_<plural>.yaml, nothing else', () => {
  assert.equal([...ours.keys()].sort(), [...ourKinds].sort());
  for (const [kind, { file, crd }] of ours) {
    assert.is(file, `infrastructure.cluster.x-k8s.io_${crd.spec.names.plural}.yaml`, kind);
    assert.is(crd.metadata.name, `${crd.spec.names.plural}.infrastructure.cluster.x-k8s.io`, kind);
  }
});

test('CV-1 v1beta2 is stored, v1beta1 served as deprecated, and the two convert through the webhook Service, never "None" (issue 18)', () => {
  for (const kind of ourKinds) {
    const versions = our(kind).spec.versions.map((v) => [v.name, v.served, v.storage, v.deprecated ?? false]);
    assert.equal(versions, [['v1beta1', true, false, true], ['v1beta2', true, true, false]], kind);
    assert.equal(our(kind).spec.conversion, {
      strategy: 'Webhook',
      webhook: {
        conversionReviewVersions: ['v1', 'v1beta1'],
        clientConfig: { service: { namespace: 'metal3-ts-system', name: 'metal3-ts-webhook-service', path: '/convert' } },
      },
    }, kind);
  }
});

test('CT-2 every CRD carries both Cluster API contract labels, as CAPM3 v1.13.2 does: v1beta1 → v1beta1, v1beta2 → v1beta2 (issue 18)', () => {
  for (const kind of ourKinds) {
    // Cluster API reads our objects at the version its newest matching label names (CT-3), so each label
    // names the served version whose shape is that contract's: v1beta2's is what conversion serves.
    // (The pinned bases carry no labels: upstream's kustomization adds them, research CT-2 [built].)
    assert.equal(our(kind).metadata.labels, { 'cluster.x-k8s.io/v1beta1': 'v1beta1', 'cluster.x-k8s.io/v1beta2': 'v1beta2' }, kind);
  }
});

test('short names and the cluster-api category as in research §0.1', () => {
  for (const kind of ourKinds) {
    assert.equal(our(kind).spec.names.shortNames, expectedShortNames[kind], kind);
    assert.equal(our(kind).spec.names.categories, ['cluster-api'], kind);
  }
});

for (const { release, versions } of references) {
  test(`${versions.join(' and ')} match CAPM3 ${release} structurally, apart from the intended differences`, () => {
    const listed = new Set(intended.filter((e) => appliesTo(e, release, versions)).map(keyOf));
    const unlisted = [...differences(release, versions)]
      .filter(([key]) => !listed.has(key))
      .map(([key, d]) => `${key}: ours ${show(d.ours)}, upstream ${show(d.upstream)}`);
    assert.equal(unlisted, [], `unlisted differences from ${release} (fix the CRD or add them to crds/intended-differences.yaml):\n${unlisted.join('\n')}`);
  });
}

test('every intended difference gives a reason and still exists in each release it names', () => {
  const actual = new Map(references.map((r) => [r.release, differences(r.release, r.versions)]));
  for (const entry of intended) {
    assert.ok(entry.reason?.trim(), `${keyOf(entry)} has no reason`);
    const releases = references.filter((r) => appliesTo(entry, r.release, r.versions));
    assert.ok(releases.length > 0, `${keyOf(entry)} applies to no release`);
    for (const r of releases) assert.ok(actual.get(r.release)?.has(keyOf(entry)), `stale entry in crds/intended-differences.yaml: ${keyOf(entry)} (${r.release})`);
  }
});

test('the comparison walks the whole upstream tree, in both versions', () => {
  // Guards against a walk that silently stops early (e.g. treating a property named `type` as a keyword).
  for (const [release, version] of [['v1.12.7', 'v1beta1'], ['v1.13.2', 'v1beta2']] as const) {
    const theirs = versionOf(upstream.get(release)?.get('Metal3DataTemplate') as Crd, version)?.schema.openAPIV3Schema;
    const mine = versionOf(our('Metal3DataTemplate'), version)?.schema.openAPIV3Schema;
    assert.ok(theirs && mine);
    assert.ok(nodeCount(theirs) > 200, `only ${nodeCount(theirs)} nodes`);
    // Properties we add or lack on purpose (intended-differences.yaml) are the only node-count differences.
    const entries = intended.filter((e) => e.kind === 'Metal3DataTemplate' && e.version === version && e.keyword === 'property' && appliesTo(e, release, [version]));
    const size = (root: typeof mine, path: string) => {
      const node = [...walkSchema(root)].find(([p]) => p === path)?.[1];
      return node ? nodeCount(node) : 0;
    };
    const added = entries.reduce((n, e) => n + size(mine, e.path), 0);
    const missing = entries.reduce((n, e) => n + size(theirs, e.path), 0);
    assert.is(nodeCount(mine) - added, nodeCount(theirs) - missing, `${release} ${version}`);
  }
});

test.run();
