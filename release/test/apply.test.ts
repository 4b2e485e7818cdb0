// config/default (kustomize-built) and the clusterctl components, server-side applied to a real
// apiserver that already serves Cluster API's CRDs and cert-manager's Issuer and Certificate (a
// stand-in: its CRDs alone, as clusterctl-repo.ts gives them): every object accepted. Each Deployment's pod
// template, created as a Pod in a namespace enforcing Pod Security "restricted", is admitted; a pod
// spec stripped of its securityContext is refused there (the enforcement is live, not assumed).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { ApiError } from '@metal3-ts/generated';
import { type Crd, installCrds } from '@metal3-ts/test/envtest/crds';
import { startEnv, type TestEnv } from '@metal3-ts/test/envtest/env';
import type { KubeObject } from '@metal3-ts/test/envtest/http';
import { checkComponents, type Manifest, renderComponents } from '../src/components.ts';
import { substitute } from '../src/envsubst.ts';
import { kustomizeBuild } from '../src/kustomize.ts';
import { CONFIG, CONTROLLERS, NAMESPACE } from '../src/layout.ts';
import { certManagerCrds } from './clusterctl-repo.ts';
import { installOrder, pathOf } from './objects.ts';

const test = suite('install manifests applied to a real apiserver with Cluster API CRDs');
let env: TestEnv;

test.before(async () => {
  // Our CRDs are not pre-installed: config/ installs them. Cluster API's, BMO's and IPAM's are.
  env = await startEnv({ crds: { ours: false } });
  // The conversion webhook's Issuer and Certificate need cert-manager's kinds (clusterctl installs
  // cert-manager before any provider).
  await installCrds(env.admin.client, certManagerCrds().map((crd) => ({ crd: crd as Crd, origin: 'cert-manager stand-in' })));
});
test.after(async () => {
  await env?.stop();
});

async function applyAll(objects: readonly Manifest[], manager: string): Promise<void> {
  for (const o of installOrder(objects)) {
    try {
      await env.admin.client.apply(pathOf(o), o, manager);
    } catch (error) {
      throw new Error(`${o.kind} ${o.metadata.name} refused: ${(error as Error).message}`);
    }
  }
}

type Deployment = Manifest & { spec: { template: { metadata: { labels: Record<string, string> }; spec: Record<string, unknown> } } };

async function restrictedNamespace(name: string): Promise<void> {
  await env.admin.client.create('/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, labels: { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/enforce-version': 'latest' } },
  });
}

test('CC-4 config/default: all objects accepted by server-side apply, the CRDs established', async () => {
  const { objects } = checkComponents(await kustomizeBuild(join(CONFIG, 'default')));
  await applyAll(objects, 'metal3-ts-config-test');
  const ns = await env.admin.client.get<KubeObject>(`/api/v1/namespaces/${NAMESPACE}`);
  assert.is(ns.metadata?.labels?.['cluster.x-k8s.io/provider'], 'infrastructure-metal3');
  for (const crd of objects.filter((o) => o.kind === 'CustomResourceDefinition')) {
    const live = await env.admin.client.get<KubeObject & { status?: { conditions?: { type: string; status: string }[] } }>(pathOf(crd));
    assert.ok(live.metadata?.labels?.['cluster.x-k8s.io/provider'], crd.metadata.name);
  }
  console.log(`  config/default: ${objects.length} objects applied`);
});

test('CC-5 components (clusterctl variables substituted with non-default values): all objects accepted; the values reach every Deployment', async () => {
  const rendered = await renderComponents();
  const text = substitute(rendered.text, { METAL3_TS_LOG_LEVEL: 'debug', METAL3_TS_KUBE_API_QPS: '50' });
  const { objects } = checkComponents(text);
  await applyAll(objects, 'metal3-ts-components-test');
  // The controllers' Deployments; the conversion webhook's (component webhook) has none of their flags.
  const deployments = objects.filter((o) => o.kind === 'Deployment' && o.metadata.labels?.['app.kubernetes.io/component'] === 'controller-manager');
  assert.is(deployments.length, CONTROLLERS.length);
  for (const d of deployments) {
    const live = await env.admin.client.get<Deployment>(pathOf(d));
    const container = (live.spec.template.spec['containers'] as { image: string; args: string[] }[])[0];
    assert.match(container?.image ?? '', /^docker\.io\/metal3-ts\/controller-[a-z]+:0\.1\.0$/);
    for (const arg of ['--log-level=debug', '--kube-api-qps=50', '--kube-api-burst=30']) assert.ok(container?.args.includes(arg), `${d.metadata.name}: ${arg}`);
  }
  console.log(`  infrastructure-components.yaml: ${objects.length} objects applied (${deployments.length} Deployments)`);
});

test('each Deployment\'s pod template is admitted under Pod Security "restricted"; one without its securityContext is refused', async () => {
  const { objects } = checkComponents(substitute((await renderComponents()).text, {}));
  const namespace = `restricted-${Date.now().toString(36)}`;
  await restrictedNamespace(namespace);
  const deployments = objects.filter((o): o is Deployment => o.kind === 'Deployment');
  assert.is(deployments.length, CONTROLLERS.length + 1, 'the controllers and the conversion webhook');
  for (const d of deployments) {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: d.metadata.name, namespace, labels: d.spec.template.metadata.labels },
      spec: d.spec.template.spec,
    };
    const created = await env.admin.client.create<KubeObject>(`/api/v1/namespaces/${namespace}/pods`, pod);
    assert.is(created.metadata?.name, d.metadata.name);
  }
  const first = deployments[0] as Deployment;
  const containers = (first.spec.template.spec['containers'] as Record<string, unknown>[]).map(({ securityContext: _, ...rest }) => rest);
  const bare = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'no-security-context', namespace },
    spec: { ...first.spec.template.spec, securityContext: {}, containers },
  };
  try {
    await env.admin.client.create(`/api/v1/namespaces/${namespace}/pods`, bare);
    assert.unreachable('a pod without securityContext was admitted: is PodSecurity admission on?');
  } catch (error) {
    assert.instance(error, ApiError);
    assert.is((error as ApiError).code, 403);
    assert.match((error as Error).message, /violates PodSecurity "restricted:latest"/);
  }
});

test.run();
