// The drain check refused (R-14, RS-12.4) against a real kube-apiserver: the controller in the
// out-of-service-taint mode under deploy/rbac.yaml without `list volumeattachments`. A refused list
// is not read as "not drained" (which would wait without a word): the reconcile fails, the harness
// retries it, and the refusal shows as a Warning event RequestRefused on the Metal3Remediation naming
// verb and resource. The remediation stays Running with the Node tainted, and nothing is lost: the
// Node is not deleted.
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EventResource, NodeResource } from '@metal3-ts/generated/core/v1';
import { Metal3RemediationResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { REQUEST_REFUSED } from '@metal3-ts/shared/controller/controller';
import { rbacObjects } from '@metal3-ts/test/envtest/rbac';
import { eventually, type RunningController, startInProcess } from '@metal3-ts/test/testing/controller-runner';
import { controllerSuite } from '@metal3-ts/test/testing/controller-suite';
import { remediationController } from '../src/controller.ts';
import { CONTROLLER_NAME, rebootAnnotation } from '../src/names.ts';
import { OUT_OF_SERVICE_TAINT } from '../src/out-of-service.ts';
import { createFixture } from './support.ts';

const { test, env, admin, track, namespace } = controllerSuite<RunningController>('Metal3Remediation: the drain check refused on a real apiserver');

/** deploy/rbac.yaml with its ClusterRole renamed (the shipped one stays as it is) and without the VolumeAttachment rule. */
function rbacWithoutVolumeAttachments(dir: string): string {
  const objects = rbacObjects(fileURLToPath(new URL('../deploy/rbac.yaml', import.meta.url))).map((o) => {
    if (o.kind !== 'ClusterRole') return o;
    const rules = (o as unknown as { rules: { resources: string[] }[] }).rules;
    return { ...o, metadata: { ...o.metadata, name: `${o.metadata?.name}-no-va` }, rules: rules.filter((r) => !r.resources.includes('volumeattachments')) };
  });
  const path = join(dir, 'rbac.yaml');
  writeFileSync(path, objects.map((o) => JSON.stringify(o)).join('\n---\n'));
  return path;
}

test('R-14/RS-12 a refused VolumeAttachment list: Warning RequestRefused naming it, still Running, the Node tainted and kept', async () => {
  const client = admin();
  const ns = await namespace('remediation-drain-refused');
  const dir = mkdtempSync(join(tmpdir(), 'drain-refused-'));
  try {
    const running = track(
      await startInProcess(env(), ns, {
        rbac: rbacWithoutVolumeAttachments(dir),
        user: 'remediation-controller-no-va',
        component: 'metal3-ts-remediation',
        controllers: [CONTROLLER_NAME],
        build: (deps) => remediationController({ ...deps, workloadClient: () => Promise.resolve(client), config: { outOfService: true } }),
      }),
    );
    const { node, uid } = await createFixture(client, ns);
    const original = await client.api(NodeResource).get(node);
    const hosts = client.api(BareMetalHostResource, ns);
    await eventually(
      'reboot annotation on the host',
      async () => rebootAnnotation(uid) in ((await hosts.get('host-0')).metadata.annotations ?? {}) || undefined,
    );
    await hosts.mergePatchStatus('host-0', { status: { poweredOn: false } });
    const expected = 'list volumeattachments.storage.k8s.io refused: 403 Forbidden';
    const event = await eventually(
      `a Warning event ${REQUEST_REFUSED} saying "${expected}"`,
      async () =>
        (await client.api(EventResource, ns).list()).items.find((e) =>
          e.type === 'Warning' && e.reason === REQUEST_REFUSED && e.involvedObject.kind === 'Metal3Remediation' && e.message?.includes(expected)
        ),
      20_000,
    );
    assert.is(event.involvedObject.name, 'worker-0');
    assert.ok(running.errors() > 0, 'the refused reconcile counts as failed (and is retried)');
    const [r, n] = [await client.api(Metal3RemediationResource, ns).get('worker-0'), await client.api(NodeResource).get(node)];
    assert.is(r.status?.phase, 'Running', 'not drained: a refused list is not an empty one');
    assert.ok(n.spec?.taints?.some((t) => t.key === OUT_OF_SERVICE_TAINT.key), 'the Node tainted');
    assert.is(n.metadata.uid, original.metadata.uid, 'and never deleted');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
