// The bundled controller (src/main.ts through scripts/bundle.ts) as a process under Node 24 and Deno 2,
// through the shared bundle suite (@metal3-ts/test/testing/bundle-suite: the credentials of a user
// bound to deploy/rbac.yaml, leader election on, ready, the Lease held, SIGTERM exits 0, no error
// logged): a Metal3Machine cloned from a sample template gets the template's mode. The process runs
// with `--watch-filter`, which (T-3, as CAPM3's main.go) this controller does not apply: the
// unlabelled sample is still reconciled.
import { fileURLToPath } from 'node:url';
import * as assert from 'uvu/assert';
import { EventResource } from '@metal3-ts/generated/core/v1';
import { bundleSuite } from '@metal3-ts/test/testing/bundle-suite';
import { createMachine, createTemplate, eventually, modesBecome, RBAC_MANIFEST } from './support.ts';

bundleSuite({
  title: 'bundled Metal3MachineTemplate controller under Node 24 and Deno 2',
  entry: fileURLToPath(new URL('../src/main.ts', import.meta.url)),
  rbac: RBAC_MANIFEST,
  name: 'tmpl',
  flags: ['--watch-filter', 'some-other-instance'],
  titles: {
    node:
      'bundle under Node 24: ready under deploy/rbac.yaml, reconciles a sample template onto its cloned Metal3Machine (T-3: --watch-filter not applied), exits 0 on SIGTERM',
    deno: 'the same bundle under Deno 2: ready, reconciles the sample, exits 0 on SIGTERM',
  },
  // This test has only ever refused errors in the log.
  warningsAllowed: true,
  async scenario({ runtime, admin, namespace: ns }) {
    await createTemplate(admin, ns, 'sample', { mode: 'disabled' });
    await createMachine(admin, ns, 'sample-0', { from: 'sample', mode: 'metadata' });
    await modesBecome(admin, ns, { 'sample-0': 'disabled' }, 20_000);
    const event = await eventually(
      `${runtime}: event`,
      async () => (await admin.api(EventResource, ns).list()).items.find((e) => e.reason === 'AutomatedCleaningModeUpdated'),
    );
    assert.is(event.reportingComponent, 'metal3machinetemplate-controller');
    assert.is(event.involvedObject.name, 'sample-0');
  },
});
