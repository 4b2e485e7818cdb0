// The real Cluster API managers of each pinned release in the test environment: the three managers
// become ready with their own webhook servers, the defaulting and validating webhooks answer through the
// apiserver, and on v1.13.5 a Cluster written at v1beta1 is stored at v1beta2 through the conversion
// webhook. Each release reads our objects at the version our contract labels give it, and our
// controllers read its objects at the version it serves (S-10). Each release gets its own
// environment: the releases' CRDs differ (storage versions).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { upstreamDirectory } from '@metal3-ts/codegen/upstream';
import { CAPI_VERSIONS } from '../envtest/capi-binaries.ts';
import { startEnv, type TestEnv } from '../envtest/env.ts';
import { ApiError } from '../envtest/errors.ts';
import type { KubeObject } from '../envtest/http.ts';
import { freshNamespace } from '../envtest/suite.ts';
import { eventually } from '../testing/eventually.ts';
import { type Machine, MachineResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { InformerFactory } from '@metal3-ts/shared/cache/informer-factory';
import { metadataProjection } from '@metal3-ts/shared/cache/transform';
import { readClusterApi } from '@metal3-ts/shared/capi/read';
import { newClient } from '@metal3-ts/shared/client/client';
import { loadKubeConfigFile } from '@metal3-ts/shared/client/kubeconfig';
import { realClock } from '@metal3-ts/shared/clock/clock';
import { silentLogger } from '@metal3-ts/shared/log/logger';
import { apiGroupOf } from '@metal3-ts/shared/meta/owner-references';
import { type ClusterApi, startClusterAPI } from './managers.ts';

const INFRA = 'infrastructure.cluster.x-k8s.io';
// deno-lint-ignore no-explicit-any -- untyped kinds (Cluster API at two versions): the assertions read paths
type Obj = KubeObject & { spec?: Record<string, any>; metadata: KubeObject['metadata'] & { labels?: Record<string, string> } };

function machineDeployment(namespace: string, name: string): Obj {
  return {
    apiVersion: 'cluster.x-k8s.io/v1beta1',
    kind: 'MachineDeployment',
    metadata: { name, namespace },
    spec: {
      clusterName: 'c1',
      replicas: 1,
      selector: { matchLabels: {} },
      template: {
        spec: {
          clusterName: 'c1',
          version: 'v1.31.0',
          bootstrap: { configRef: { apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta1', kind: 'KubeadmConfigTemplate', name: 'workers' } },
          infrastructureRef: { apiVersion: `${INFRA}/v1beta1`, kind: 'Metal3MachineTemplate', name: 'workers' },
        },
      },
    },
  };
}

function controlPlane(namespace: string, name: string, replicas: number): Obj {
  return {
    apiVersion: 'controlplane.cluster.x-k8s.io/v1beta1',
    kind: 'KubeadmControlPlane',
    metadata: { name, namespace },
    spec: {
      replicas,
      version: 'v1.31.0',
      machineTemplate: { infrastructureRef: { apiVersion: `${INFRA}/v1beta1`, kind: 'Metal3MachineTemplate', name: 'cp', namespace } },
      kubeadmConfigSpec: {},
    },
  };
}

for (const version of CAPI_VERSIONS) {
  const test = suite(`real Cluster API ${version}`);
  let env: TestEnv;
  let capi: ClusterApi;
  let ns: string;

  test.before(async () => {
    env = await startEnv();
    capi = await startClusterAPI(env, { version });
    const t = capi.timings;
    console.error(
      `capi ${version}: binaries ${Math.round(t.binariesMs)} ms, CRDs ${Math.round(t.crdsMs)} ms, managers ready ${Math.round(t.managersMs)} ms, webhooks ${
        Math.round(t.webhooksMs)
      } ms`,
    );
    ns = await freshNamespace(env.admin.client, `capi-${version.replace(/\./g, '-')}`);
  });

  test.after(async () => {
    await capi?.stop();
    await env?.stop();
  });

  test(`${version}: core, kubeadm bootstrap and kubeadm control-plane managers are ready, each with its webhook server`, async () => {
    for (const [name, manager] of Object.entries(capi.managers)) {
      assert.ok(manager.process.alive, `${name} manager running`);
      const readyz = await fetch(`http://127.0.0.1:${manager.healthPort}/readyz?verbose`).then((r) => r.text());
      assert.match(readyz, /webhook/, `${name} readyz checks its webhook server`);
    }
    const kubeadmCrd = await env.admin.client.get<Obj>('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/kubeadmconfigs.bootstrap.cluster.x-k8s.io');
    assert.is(kubeadmCrd.metadata.labels?.['cluster.x-k8s.io/v1beta1'], 'v1beta1', 'contract label as released');
  });

  test(`${version}: the defaulting webhook labels a MachineDeployment with its cluster`, async () => {
    const md = await env.admin.client.create<Obj>(`/apis/cluster.x-k8s.io/v1beta1/namespaces/${ns}/machinedeployments`, machineDeployment(ns, 'md'));
    assert.is(md.metadata.labels?.['cluster.x-k8s.io/cluster-name'], 'c1');
    assert.is(md.spec?.['selector']?.matchLabels?.['cluster.x-k8s.io/cluster-name'], 'c1');
  });

  test(`${version}: the validating webhook refuses a KubeadmControlPlane with 2 replicas, naming spec.replicas`, async () => {
    const error = await env.admin.client
      .create(`/apis/controlplane.cluster.x-k8s.io/v1beta1/namespaces/${ns}/kubeadmcontrolplanes`, controlPlane(ns, 'even', 2))
      .then(() => undefined, (e: unknown) => e);
    assert.instance(error, ApiError);
    const message = (error as ApiError).serverMessage;
    assert.match(message, /admission webhook "validation\.kubeadmcontrolplane\.controlplane\.cluster\.x-k8s\.io" denied the request/);
    assert.match(message, /spec\.replicas/);
    await env.admin.client.create(`/apis/controlplane.cluster.x-k8s.io/v1beta1/namespaces/${ns}/kubeadmcontrolplanes`, controlPlane(ns, 'odd', 3));
  });

  if (version === 'v1.13.5') {
    test(`${version}: the installed manifests come from the module as tagged: the pinned kustomizations and bases are the same bytes`, () => {
      const pinned = join(upstreamDirectory(), 'cluster-api-v1.13.5');
      const files = (dir: string): string[] => readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : [join(dir, f)]));
      const kustomize = files(join(pinned, 'kustomize'));
      assert.ok(kustomize.length > 20);
      for (const file of kustomize) {
        assert.is(readFileSync(join(capi.binaries.release, relative(join(pinned, 'kustomize'), file)), 'utf8'), readFileSync(file, 'utf8'), file);
      }
      for (const { path } of [{ path: '.' }, { path: 'bootstrap/kubeadm' }, { path: 'controlplane/kubeadm' }]) {
        const bases = join(capi.binaries.release, path, 'config/crd/bases');
        for (const base of readdirSync(bases)) assert.is(readFileSync(join(bases, base), 'utf8'), readFileSync(join(pinned, base), 'utf8'), base);
      }
    });
  }

  if (version !== 'v1.10.10') {
    test(`${version}: a Cluster written at v1beta1 is stored at v1beta2 through the conversion webhook (apiGroup references)`, async () => {
      await env.admin.client.create(`/apis/cluster.x-k8s.io/v1beta1/namespaces/${ns}/clusters`, {
        apiVersion: 'cluster.x-k8s.io/v1beta1',
        kind: 'Cluster',
        metadata: { name: 'c1', namespace: ns },
        spec: { infrastructureRef: { apiVersion: `${INFRA}/v1beta1`, kind: 'Metal3Cluster', name: 'c1' } },
      });
      const v2 = await env.admin.client.get<Obj>(`/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/clusters/c1`);
      assert.is(v2.apiVersion, 'cluster.x-k8s.io/v1beta2');
      assert.equal(v2.spec?.['infrastructureRef'], { apiGroup: INFRA, kind: 'Metal3Cluster', name: 'c1' });
      const v1 = await env.admin.client.get<Obj>(`/apis/cluster.x-k8s.io/v1beta1/namespaces/${ns}/clusters/c1`);
      assert.is(v1.spec?.['infrastructureRef']?.kind, 'Metal3Cluster');
      assert.is(v1.spec?.['infrastructureRef']?.name, 'c1');
    });
  }

  test(`${version}: CT-2/CT-3/CT-11 Cluster API reads a Metal3Cluster at the version its newest contract label names (${version === 'v1.10.10' ? 'v1beta1' : 'v1beta2'})`, async () => {
    // One object whose two views disagree on purpose: its v1beta1 Ready condition and its v1beta2 Ready
    // condition carry different reasons, so the reason Cluster API mirrors into the Cluster's
    // InfrastructureReady says which version it read.
    const expected = version === 'v1.10.10' ? 'ReadInV1beta1' : 'ReadInV1beta2';
    await env.admin.client.create(`/apis/${INFRA}/v1beta1/namespaces/${ns}/metal3clusters`, {
      apiVersion: `${INFRA}/v1beta1`,
      kind: 'Metal3Cluster',
      metadata: { name: 'contract', namespace: ns },
      spec: { controlPlaneEndpoint: { host: '192.0.2.10', port: 6443 }, noCloudProvider: true },
    });
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    await env.admin.client.mergePatch(`/apis/${INFRA}/v1beta1/namespaces/${ns}/metal3clusters/contract/status`, {
      status: {
        ready: false,
        conditions: [{ type: 'Ready', status: 'False', severity: 'Info', reason: 'ReadInV1beta1', lastTransitionTime: now }],
        v1beta2: { conditions: [{ type: 'Ready', status: 'False', reason: 'ReadInV1beta2', message: 'read at v1beta2', lastTransitionTime: now }] },
      },
    });
    await env.admin.client.create(`/apis/cluster.x-k8s.io/v1beta1/namespaces/${ns}/clusters`, {
      apiVersion: 'cluster.x-k8s.io/v1beta1',
      kind: 'Cluster',
      metadata: { name: 'contract', namespace: ns },
      spec: { infrastructureRef: { apiVersion: `${INFRA}/v1beta1`, kind: 'Metal3Cluster', name: 'contract' } },
    });
    // v1.10.10 mirrors into the v1beta1 Cluster's conditions; v1.13.5 into the v1beta2 Cluster's.
    type Condition = { type: string; reason?: string; message?: string };
    const clusterVersion = version === 'v1.10.10' ? 'v1beta1' : 'v1beta2';
    const mirrored = await eventually(`the Cluster's InfrastructureReady condition on ${version}`, async () => {
      const cluster = await env.admin.client.get<Obj & { status?: { conditions?: Condition[] } }>(
        `/apis/cluster.x-k8s.io/${clusterVersion}/namespaces/${ns}/clusters/contract`,
      );
      const condition = cluster.status?.conditions?.find((c) => c.type === 'InfrastructureReady');
      return condition?.reason ? condition : undefined;
    }, 60_000);
    assert.is(mirrored.reason, expected);
    if (version !== 'v1.10.10') assert.is(mirrored.message, 'read at v1beta2');
  });

  test(`${version}: S-10 the controllers read Cluster API at ${version === 'v1.10.10' ? 'v1beta1' : 'v1beta2'}: the informers list that version and cache a Machine in the shape the controllers read, or its metadata alone`, async () => {
    const want = version === 'v1.10.10' ? 'v1beta1' : 'v1beta2';
    const client = newClient(loadKubeConfigFile(env.kubeconfigPath));
    const informers = new InformerFactory(client, { namespace: ns });
    const stop = new AbortController();
    try {
      assert.is(await readClusterApi({ client, informers, log: silentLogger, clock: realClock }, { attempts: 1 }), want);
      await env.admin.client.create(`/apis/cluster.x-k8s.io/v1beta1/namespaces/${ns}/machines`, {
        apiVersion: 'cluster.x-k8s.io/v1beta1',
        kind: 'Machine',
        metadata: { name: 'read', namespace: ns },
        spec: {
          clusterName: 'contract',
          bootstrap: { dataSecretName: 'read-data' },
          infrastructureRef: { apiVersion: `${INFRA}/v1beta1`, kind: 'Metal3Machine', name: 'read-m3m' },
          providerID: 'metal3://ns/h1/read-m3m',
        },
      });
      const machines = informers.informerFor(MachineResource);
      const metadata = informers.projectedInformerFor(MachineResource, metadataProjection<Machine>());
      const running = informers.start(stop.signal);
      await informers.waitForSync();
      // The metadata-only informer lists and watches PartialObjectMetadata at the served version.
      // Cluster API's Machine controller writes the Machine (its finalizer) while the two list and
      // watch: compare them once both hold the same resourceVersion.
      const key = { namespace: ns, name: 'read' };
      const { full, meta } = await eventually('both informers at one resourceVersion of the Machine', () => {
        const full = machines.store.get(key);
        const meta = metadata.store.get(key);
        return full && full.metadata.resourceVersion === meta?.metadata.resourceVersion ? { full, meta } : undefined;
      }, 30_000);
      assert.equal(meta, { apiVersion: `cluster.x-k8s.io/${want}`, kind: 'Machine', metadata: full.metadata });
      const machine = machines.store.get({ namespace: ns, name: 'read' });
      assert.is(machine?.apiVersion, `cluster.x-k8s.io/${want}`);
      const ref = machine?.spec?.infrastructureRef;
      assert.equal([apiGroupOf(ref?.apiVersion ?? ''), ref?.kind, ref?.name, ref?.namespace], [INFRA, 'Metal3Machine', 'read-m3m', ns]);
      assert.is(machine?.spec?.bootstrap.dataSecretName, 'read-data');
      assert.is(machine?.spec?.providerID, 'metal3://ns/h1/read-m3m');
      stop.abort();
      await running;
    } finally {
      stop.abort();
      client.transport.close();
    }
  });

  test.run();
}
