// config/'s generated files equal what their sources give (CRDs, policy, each controller's rules):
// the one-source rule, checked like codegen's drift. A changed rule or a stale copy is reported.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { CONFIG, CONTROLLERS, ROOT } from './layout.ts';
import { configDrift, configFiles } from './sync.ts';
import { sameGrants } from './rbac-union.ts';

test('config/ is what `npm run config` writes (run it after editing crds/ or a deploy/rbac.yaml)', () => {
  assert.equal(configDrift(), []);
});

test("F-15 each controller's install rules are exactly its deploy/rbac.yaml rules", () => {
  const files = configFiles();
  const rulesOf = (text: string, kind: string) => parseAllDocuments(text).map((d) => d.toJSON()).find((o) => o?.kind === kind)?.rules;
  for (const c of CONTROLLERS) {
    const source = readFileSync(join(ROOT, `controllers/${c}/deploy/rbac.yaml`), 'utf8');
    const installed = files.get(`controllers/${c}/rbac.yaml`) as string;
    for (const kind of ['ClusterRole', 'Role']) assert.equal(rulesOf(installed, kind), rulesOf(source, kind), `${c} ${kind}`);
  }
});

test('F-15 the all-in-one install grants exactly the union of the five deploy/rbac.yaml files (cluster and Lease rules), no more', () => {
  const rulesOf = (text: string, kind: string) => parseAllDocuments(text).map((d) => d.toJSON()).filter((o) => o?.kind === kind).flatMap((o) => o.rules);
  const installed = configFiles().get('all-in-one/rbac.yaml') as string;
  const sources = CONTROLLERS.map((c) => readFileSync(join(ROOT, `controllers/${c}/deploy/rbac.yaml`), 'utf8'));
  for (const kind of ['ClusterRole', 'Role']) {
    const union = sources.flatMap((s) => rulesOf(s, kind));
    assert.ok(union.length > 0);
    assert.ok(sameGrants(rulesOf(installed, kind), union), `${kind}: the same grants as the five files together`);
    for (const [i, s] of sources.entries()) {
      assert.not.ok(sameGrants(rulesOf(installed, kind), rulesOf(s, kind)) && kind === 'ClusterRole', `${CONTROLLERS[i]} alone is less`);
    }
  }
});

test('drift names a changed rule file and a stale CRD copy', () => {
  const copy = mkdtempSync(join(tmpdir(), 'config-drift-'));
  try {
    cpSync(CONFIG, copy, { recursive: true });
    appendFileSync(join(copy, 'controllers/machine/rbac.yaml'), '# edited by hand\n');
    writeFileSync(join(copy, 'crd/infrastructure.cluster.x-k8s.io_metal3gones.yaml'), 'kind: CustomResourceDefinition\n');
    assert.equal(configDrift(ROOT, copy).sort(), ['controllers/machine/rbac.yaml (differs)', 'crd/infrastructure.cluster.x-k8s.io_metal3gones.yaml (stale)']);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});

test.run();
