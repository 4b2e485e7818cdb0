// clusterctl itself (v1.13.5, built from its Go module by test/envtest/bins/build-tools.sh) installs
// the provider from a local repository into a real apiserver and deletes it again (research CC-1 to
// CC-5) and upgrades it: it reads our metadata.yaml (series 0.1 → contract v1beta1, accepted next to a v1beta2 core),
// finds exactly our declared variables, installs every object of the components with its labels and
// the provider inventory, keeps the CRDs' regex `$` intact, and `clusterctl delete` removes it all.
// clusterctl runs with HOME and XDG dirs in a temp directory, no network: cert-manager is "already
// installed" for it (clusterctl-repo.ts says how), the version check is off.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startEnv, type TestEnv } from '@metal3-ts/test/envtest/env';
import { isNotFound, type KubeObject } from '@metal3-ts/test/envtest/http';
import { eventually } from '@metal3-ts/test/testing/eventually';
import { checkComponents, type Manifest, renderComponents } from '../src/components.ts';
import { substitute } from '../src/envsubst.ts';
import { toolPath } from '../src/kustomize.ts';
import { NAMESPACE } from '../src/layout.ts';
import { VARIABLES } from '../src/variables.ts';
import { CAPI_VERSION, certManagerCrds, IMAGE_OVERRIDE, type LocalRepository, localRepository } from './clusterctl-repo.ts';
import { pathOf } from './objects.ts';

const run = promisify(execFile);
const test = suite('clusterctl init and delete of the metal3-ts provider from a local repository');
let env: TestEnv;
let dir: string;
let clusterctl: string;
let repo: LocalRepository;
let components: Manifest[];

test.before(async () => {
  // No Cluster API CRDs: clusterctl v1.13 refuses a management cluster whose Cluster CRD stores
  // v1beta1 (the test env's upstream v1.10 CRDs); its core stand-in installs a v1beta2 one.
  [env, clusterctl] = await Promise.all([startEnv({ crds: false }), toolPath('clusterctl')]);
  dir = mkdtempSync(join(tmpdir(), 'clusterctl-'));
  repo = await localRepository(dir);
  components = checkComponents(substitute((await renderComponents()).text, {})).objects;
  for (const crd of certManagerCrds()) await env.admin.client.create('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
  await eventually(
    'cert-manager stand-in CRDs served',
    async () => ((await env.admin.client.get('/apis/cert-manager.io/v1/issuers')) ? true : undefined),
    20_000,
  );
});
test.after(async () => {
  await env?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function clusterctlRun(args: string[], options: { cluster?: boolean; env?: Record<string, string> } = {}): Promise<string> {
  const home = join(dir, 'home');
  const kubeconfig = options.cluster === false ? [] : ['--kubeconfig', env.kubeconfigPath];
  try {
    const { stdout, stderr } = await run(clusterctl, [...args, '--config', repo.config, ...kubeconfig, '-v', '2'], {
      env: {
        PATH: process.env['PATH'] ?? '/usr/bin:/bin',
        HOME: home,
        XDG_CONFIG_HOME: join(home, '.config'),
        XDG_CACHE_HOME: join(home, '.cache'),
        CLUSTERCTL_DISABLE_VERSIONCHECK: 'true',
        ...options.env,
      },
      maxBuffer: 32 << 20,
      timeout: 180_000,
    });
    return `${stdout}\n${stderr}`;
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`clusterctl ${args.join(' ')} failed: ${e.stderr || e.stdout || e.message}`);
  }
}

// deno-lint-ignore no-explicit-any -- apps/v1 and clusterctl's objects have no generated types here: the assertions read paths
const get = (path: string) => env.admin.client.get<KubeObject & Record<string, any>>(path);
const gone = async (path: string) => {
  try {
    await env.admin.client.get(path);
    return undefined;
  } catch (error) {
    if (isNotFound(error)) return true;
    throw error;
  }
};

test('CC-4 clusterctl sees exactly the declared variables (generate provider --describe)', async () => {
  const out = await clusterctlRun(['generate', 'provider', '--infrastructure', `metal3:${repo.version}`, '--describe'], { cluster: false });
  // Its "Variables:" block: one `- NAME` line each, up to the "Images:" block.
  const block = /\nVariables:\n((?: *- .*\n)*)/.exec(out)?.[1] ?? '';
  const listed = block.split('\n').filter(Boolean).map((line) => line.replace(/^ *- /, '').trim());
  assert.equal(listed.sort(), VARIABLES.map((v) => v.name).sort(), out);
});

test(`CC-2 CC-3 CC-5 CC-6 CT-27 clusterctl init --infrastructure metal3 (core ${CAPI_VERSION} stand-ins): every object installed and labelled, inventory written`, async () => {
  const out = await clusterctlRun([
    'init',
    '--core',
    `cluster-api:${CAPI_VERSION}`,
    '--bootstrap',
    `kubeadm:${CAPI_VERSION}`,
    '--control-plane',
    `kubeadm:${CAPI_VERSION}`,
    '--infrastructure',
    `metal3:${repo.version}`,
  ], { env: { METAL3_TS_LOG_LEVEL: 'debug' } });
  assert.match(out, /Skipping installing cert-manager as it is already installed/);
  const inventory = await get(`/apis/clusterctl.cluster.x-k8s.io/v1alpha3/namespaces/${NAMESPACE}/providers/infrastructure-metal3`);
  assert.equal([inventory['providerName'], inventory['type'], inventory['version']], ['metal3', 'InfrastructureProvider', repo.version]);
  for (const o of components) {
    const live = await get(pathOf(o));
    assert.is(live.metadata?.labels?.['cluster.x-k8s.io/provider'], 'infrastructure-metal3', `${o.kind} ${o.metadata.name}`);
    assert.ok(live.metadata?.labels && 'clusterctl.cluster.x-k8s.io' in live.metadata.labels, `${o.kind} ${o.metadata.name} has clusterctl's label`);
  }
  const deployment = await get(`/apis/apps/v1/namespaces/${NAMESPACE}/deployments/metal3-ts-machine-controller-manager`);
  // clusterctl.yaml's `images:` override and a variable from the environment reached the Deployment.
  const manager = deployment['spec'].template.spec.containers[0];
  assert.is(manager.image, `${IMAGE_OVERRIDE.repository}/controller-machine:${IMAGE_OVERRIDE.tag}`);
  assert.ok(manager.args.includes('--log-level=debug') && manager.args.includes('--kube-api-qps=20'), manager.args.join(' '));
  // clusterctl substitutes `$NAME` everywhere: the regex anchors of our CRDs must come through intact.
  const crd = await get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/metal3clusters.infrastructure.cluster.x-k8s.io');
  assert.ok(JSON.stringify(crd['spec']).includes('^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$'), 'pattern with $ intact');
  console.log(`  clusterctl installed ${repo.objectCount} objects of infrastructure-components.yaml`);
});

test('CT-27 clusterctl upgrade apply --infrastructure metal3:<next>: the inventory moves on, a Metal3Cluster made before survives', async () => {
  await env.admin.client.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'tenant' } });
  // At v1beta2, the version the CRDs store: any other needs the conversion webhook, and no Pod runs
  // here to serve it (the webhook itself is tested through the apiserver in controllers/conversion).
  const path = '/apis/infrastructure.cluster.x-k8s.io/v1beta2/namespaces/tenant/metal3clusters';
  const before = await env.admin.client.create<KubeObject>(path, {
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
    kind: 'Metal3Cluster',
    metadata: { name: 'kept' },
    spec: { controlPlaneEndpoint: { host: 'api.kept.example', port: 6443 } },
  });
  const plan = await clusterctlRun(['upgrade', 'plan']);
  assert.match(plan, new RegExp(`infrastructure-metal3\\s+${NAMESPACE}\\s+InfrastructureProvider\\s+${repo.version}\\s+${repo.nextVersion}`), plan);
  await clusterctlRun(['upgrade', 'apply', '--infrastructure', `metal3:${repo.nextVersion}`]);
  const inventory = await get(`/apis/clusterctl.cluster.x-k8s.io/v1alpha3/namespaces/${NAMESPACE}/providers/infrastructure-metal3`);
  assert.is(inventory['version'], repo.nextVersion);
  const after = await get(`${path}/kept`);
  assert.is(after.metadata?.uid, before.metadata?.uid, 'the same object, not a re-created one');
  for (const o of components) assert.ok(await get(pathOf(o)), `${o.kind} ${o.metadata.name} after the upgrade`);
  // `clusterctl delete --include-crd` refuses while any object of our CRDs exists.
  await env.admin.client.request('DELETE', `${path}/kept`);
});

// clusterctl v1.13 deletes a cluster-scoped object (other than CRDs and webhooks) only when its name
// starts with `<namespace>-`, a leftover of the instance prefixes it stopped adding (its
// components.go): our ClusterRoles, their bindings and the admission policy stay, as CAPM3's
// capm3-manager-role does. The README's delete step removes them by the provider label.
const LEFT_BY_CLUSTERCTL = new Set(['ClusterRole', 'ClusterRoleBinding']);

test("CC-5 clusterctl delete --infrastructure metal3 --include-crd removes the namespaced objects, CRDs and inventory entry; the README's label delete the cluster-scoped rest", async () => {
  await clusterctlRun(['delete', '--infrastructure', 'metal3', '--include-crd']);
  await eventually(
    'the inventory entry gone',
    () => gone(`/apis/clusterctl.cluster.x-k8s.io/v1alpha3/namespaces/${NAMESPACE}/providers/infrastructure-metal3`),
    30_000,
  );
  for (const o of components.filter((x) => x.kind !== 'Namespace' && !LEFT_BY_CLUSTERCTL.has(x.kind))) {
    await eventually(`${o.kind} ${o.metadata.name} gone`, () => gone(pathOf(o)), 30_000);
  }
  const left = components.filter((o) => LEFT_BY_CLUSTERCTL.has(o.kind));
  for (const o of left) assert.ok(await get(pathOf(o)), `${o.kind} ${o.metadata.name} left by clusterctl`);
  // The README's step: delete what carries the provider label, by kind (what kubectl delete -l does).
  const selector = { labelSelector: 'cluster.x-k8s.io/provider=infrastructure-metal3' };
  for (const list of ['/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', '/apis/rbac.authorization.k8s.io/v1/clusterroles']) {
    await env.admin.client.request('DELETE', list, { query: selector });
  }
  for (const o of left) await eventually(`${o.kind} ${o.metadata.name} gone`, () => gone(pathOf(o)), 30_000);
  // The core stand-in is still installed: only our provider was deleted.
  assert.ok(await get(`/apis/clusterctl.cluster.x-k8s.io/v1alpha3/namespaces/capi-system/providers/cluster-api`));
  console.log(`  clusterctl delete removed ${components.length - left.length - 1} objects; ${left.length} cluster-scoped ones went by label`);
});

test.run();
