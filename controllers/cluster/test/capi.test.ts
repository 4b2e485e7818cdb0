// Our Metal3Cluster controller beside the REAL Cluster API managers of each pinned release (no
// simulator): a Cluster whose infrastructureRef names one of our Metal3Clusters is adopted by Cluster
// API, our controller marks it ready (C-14), and Cluster API reports the infrastructure provisioned and
// copies the control-plane endpoint (S-13.1: a v1beta1-contract provider still provisions on v1.13).
// What Cluster API v1.13.5 reports in its v1beta2 conditions is printed for the record.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, Transport } from '@metal3-ts/generated';
import { CAPI_VERSIONS } from '@metal3-ts/test/envtest/capi-binaries';
import { startEnv, type TestEnv } from '@metal3-ts/test/envtest/env';
import { freshNamespace } from '@metal3-ts/test/envtest/suite';
import { type ClusterApi, startClusterAPI } from '@metal3-ts/test/capi/managers';
import { createCluster, createMetal3Cluster, ENDPOINT, eventually, metal3ClusterWhen, startClusterController } from './support.ts';

interface RawCluster {
  spec?: { controlPlaneEndpoint?: { host?: string; port?: number } };
  status?: {
    phase?: string;
    infrastructureReady?: boolean;
    initialization?: { infrastructureProvisioned?: boolean };
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
  };
}

type Condition = NonNullable<NonNullable<RawCluster['status']>['conditions']>[number];
/** `Type=Status/Reason`, with the message when not True (what Cluster API is waiting for). */
const describe = (c: Condition) => `${c.type}=${c.status}/${c.reason ?? ''}${c.status !== 'True' && c.message ? ` (${c.message.replace(/\s+/g, ' ')})` : ''}`;

for (const version of CAPI_VERSIONS) {
  const test = suite(`Metal3Cluster with the real Cluster API ${version}`);
  let env: TestEnv;
  let capi: ClusterApi;
  let admin: Client;

  test.before(async () => {
    env = await startEnv();
    capi = await startClusterAPI(env, { version });
    admin = new Client(Transport.fromConnection(env.admin));
  });
  test.after(async () => {
    admin?.transport.close();
    await capi?.stop();
    await env?.stop();
  });

  test(`${version}: C-14 S-13 a Cluster referencing our ready Metal3Cluster is provisioned as real Cluster API sees it`, async () => {
    const ns = await freshNamespace(env.admin.client, `m3c-capi-${version.replace(/\./g, '-')}`);
    const controller = await startClusterController(env, ns);
    try {
      const started = performance.now();
      await createMetal3Cluster(admin, ns, 'c1');
      await createCluster(admin, ns, 'c1');
      const path = `/apis/cluster.x-k8s.io/v1beta1/namespaces/${ns}/clusters/c1`;
      const v1 = await eventually(
        'Cluster API to report the infrastructure ready and the Cluster Provisioned',
        async () => {
          const c = await env.admin.client.get<RawCluster>(path);
          return c.status?.infrastructureReady === true && c.status.phase === 'Provisioned' ? c : undefined;
        },
        60_000,
      );
      const elapsed = Math.round(performance.now() - started);
      assert.equal(v1.spec?.controlPlaneEndpoint, ENDPOINT, 'Cluster API copied the endpoint from the Metal3Cluster');
      const m3c = await metal3ClusterWhen(
        admin,
        ns,
        'c1',
        'owned by the Cluster',
        (m) => (m.metadata.ownerReferences ?? []).some((o) => o.kind === 'Cluster' && o.name === 'c1'),
      );
      assert.is(m3c.status?.ready, true);
      let observed = `v1beta1 phase ${v1.status?.phase}, infrastructureReady ${v1.status?.infrastructureReady}`;
      if (version !== 'v1.10.10') {
        const v2 = await env.admin.client.get<RawCluster>(path.replace('/v1beta1/', '/v1beta2/'));
        assert.is(v2.status?.initialization?.infrastructureProvisioned, true);
        const infra = v2.status?.conditions?.find((c) => c.type === 'InfrastructureReady');
        assert.is(infra?.status, 'True', 'v1beta2 InfrastructureReady');
        observed += `; v1beta2 ${(v2.status?.conditions ?? []).map(describe).join(' ')}`;
      }
      console.error(`capi ${version}: Cluster Provisioned ${elapsed} ms after creation; ${observed}`);
      assert.is(controller.counter.count({ code: 403 }), 0, 'no request was forbidden by deploy/rbac.yaml');
      assert.is(controller.errors(), 0);
    } finally {
      await controller.stop();
    }
  });

  test.run();
}
