// Every rule of webhook-rules.ts sits on the schema node and version it names, runs when it says (create,
// update or always), and the CRD defaults that replace upstream's defaulting webhooks are in place.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadOurCrds, versionOf, walkSchema, type Crd, type SchemaNode } from './crds.ts';
import { webhookRules } from './webhook-rules.ts';

const ours = loadOurCrds();
const our = (kind: string): Crd => ours.get(kind)!.crd;
const at = (root: SchemaNode | undefined, path: string) => (root ? [...walkSchema(root)].find(([p]) => p === path)?.[1] : undefined);

for (const id of [...new Set(webhookRules.map((r) => r.id))]) {
  test(`${id} rules sit on the schema nodes listed in webhook-rules.ts`, () => {
    for (const rule of webhookRules.filter((r) => r.id === id)) {
      const where = `${rule.kind} ${rule.version} ${rule.node || '(root)'}`;
      const node = at(versionOf(our(rule.kind), rule.version)?.schema.openAPIV3Schema, rule.node);
      assert.ok(node, `${where}: no such node`);
      const found = (node['x-kubernetes-validations'] ?? []).filter((v) => (v.message ?? v.messageExpression ?? '').includes(rule.message));
      assert.is(found.length, 1, `${where}: "${rule.message}"`);
      const v = found[0];
      const usesOld = /\boldSelf\b/.test(v?.rule ?? '');
      assert.is(usesOld, rule.when !== 'always', `${where} "${rule.message}" should run ${rule.when}`);
      assert.is(v?.optionalOldSelf === true, rule.when === 'create', `${where} "${rule.message}" optionalOldSelf`);
    }
  });
}

test('every CEL rule of every version is listed in webhook-rules.ts (no unaccounted admission rule)', () => {
  const unlisted: string[] = [];
  for (const [kind, { crd }] of ours) {
    for (const version of crd.spec.versions) {
      for (const [path, node] of walkSchema(version.schema.openAPIV3Schema)) {
        for (const v of node['x-kubernetes-validations'] ?? []) {
          const text = v.message ?? v.messageExpression ?? '';
          const listed = webhookRules.some((r) => r.kind === kind && r.version === version.name && r.node === path && text.includes(r.message));
          if (!listed) unlisted.push(`${kind} ${version.name} ${path || '(root)'}: ${text}`);
        }
      }
    }
  }
  assert.equal(unlisted, []);
});

test('W-2 cloud flags get no static v1beta1 default (a default on one would conflict with the other, W-3)', () => {
  const spec = versionOf(our('Metal3Cluster'))?.schema.openAPIV3Schema.properties?.['spec'];
  assert.is(spec?.properties?.['cloudProviderEnabled']?.default, undefined);
  assert.is(spec?.properties?.['noCloudProvider']?.default, undefined);
  assert.is(spec?.properties?.['controlPlaneEndpoint']?.properties?.['port']?.default, undefined);
});

test('W2-2 v1beta2 defaults by CRD what the upstream defaulter does: cloudProviderEnabled false, port 6443', () => {
  const root = versionOf(our('Metal3Cluster'), 'v1beta2')?.schema.openAPIV3Schema;
  assert.is(at(root, '.spec.cloudProviderEnabled')?.default, false);
  assert.is(at(root, '.spec.controlPlaneEndpoint.port')?.default, 6443);
});

test('W-14 CRD-level defaults are kept: nodeReuse false, index step 1, link mtu 1500 (both versions)', () => {
  for (const version of ['v1beta1', 'v1beta2']) {
    const mt = versionOf(our('Metal3MachineTemplate'), version)?.schema.openAPIV3Schema;
    const dt = versionOf(our('Metal3DataTemplate'), version)?.schema.openAPIV3Schema;
    assert.is(at(mt, '.spec.nodeReuse')?.default, false, version);
    assert.is(at(dt, '.spec.metaData.indexes[].step')?.default, 1, version);
    for (const link of ['ethernets', 'bonds', 'vlans']) assert.is(at(dt, `.spec.networkData.links.${link}[].mtu`)?.default, 1500, `${version} ${link}`);
  }
});

test('W2-10 v1beta2 template strategy defaults: Reboot, 600 seconds, retry limit 1', () => {
  const root = versionOf(our('Metal3RemediationTemplate'), 'v1beta2')?.schema.openAPIV3Schema;
  assert.is(at(root, '.spec.template.spec.strategy.type')?.default, 'Reboot');
  assert.is(at(root, '.spec.template.spec.strategy.timeoutSeconds')?.default, 600);
  assert.is(at(root, '.spec.template.spec.strategy.retryLimit')?.default, 1);
});

test.run();
