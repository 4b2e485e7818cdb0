// The bundled controller (src/main.ts through scripts/bundle.ts) as a process under Node 24 and Deno 2,
// through the shared bundle suite (a user bound to deploy/rbac.yaml, leader election on, ready, the
// Lease held, SIGTERM exits 0, no warning or error logged): a remediation of a Machine whose host a
// user switched off (`spec.online: false`) ends in phase Failed (RS-8) and the host is left alone.
import { fileURLToPath } from 'node:url';
import * as assert from 'uvu/assert';
import { Metal3RemediationResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { bundleSuite } from '@metal3-ts/test/testing/bundle-suite';
import { eventually } from '@metal3-ts/test/testing/controller-runner';
import { createFixture } from './support.ts';

bundleSuite({
  title: 'bundled Metal3Remediation controller under Node 24 and Deno 2',
  entry: fileURLToPath(new URL('../src/main.ts', import.meta.url)),
  rbac: fileURLToPath(new URL('../deploy/rbac.yaml', import.meta.url)),
  name: 'remediation',
  flags: ['--metal3remediation-concurrency', '2'],
  titles: {
    node: 'bundle under Node 24: ready under deploy/rbac.yaml with leader election, RS-8 a remediation of an offline host is Failed, exits 0 on SIGTERM',
    deno: 'the same bundle under Deno 2: ready, RS-8 Failed, exits 0 on SIGTERM',
  },
  async scenario({ runtime, admin, namespace: ns }) {
    await createFixture(admin, ns, { online: false });
    await eventually(
      `${runtime}: phase Failed`,
      async () => (await admin.api(Metal3RemediationResource, ns).get('worker-0')).status?.phase === 'Failed' || undefined,
      20_000,
    );
    const host = await admin.api(BareMetalHostResource, ns).get('host-0');
    assert.not.ok(Object.keys(host.metadata.annotations ?? {}).some((a) => a.startsWith('reboot.metal3.io')), 'no reboot annotation');
  },
});
