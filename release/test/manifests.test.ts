// config/default as kustomize builds it, and the clusterctl components (research CC-4, CC-5): the
// shape the provider contract and the brief ask of every Deployment (container `manager`, its own
// ServiceAccount, leader election with its own Lease, probes, metrics, resources, a restricted
// securityContext), its arguments accepted by the controllers' real flag parser, and every clusterctl
// variable declared and documented.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { managerFlags, parseArgs } from '@metal3-ts/shared/entry/config';
import { checkComponents, type Manifest, renderComponents } from '../src/components.ts';
import { substitute, VariableError } from '../src/envsubst.ts';
import { kustomizeBuild } from '../src/kustomize.ts';
import { CONFIG, CONTROLLERS, names, NAMESPACE, ROOT } from '../src/layout.ts';
import { VARIABLES } from '../src/variables.ts';

const test = suite('install manifests (config/) and clusterctl components');
let objects: Manifest[] = [];

test.before(async () => {
  objects = checkComponents(await kustomizeBuild(join(CONFIG, 'default'))).objects;
});

const find = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);

interface Container {
  name: string;
  image: string;
  args: string[];
  env?: { name: string; valueFrom?: { fieldRef?: { fieldPath: string } } }[];
  ports: { name: string; containerPort: number }[];
  livenessProbe: { httpGet: { path: string; port: string } };
  readinessProbe: { httpGet: { path: string; port: string } };
  resources: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext: Record<string, unknown>;
}

for (const c of CONTROLLERS) {
  test(`CC-4 ${c}: Deployment, ServiceAccount, ClusterRole and leader-election Role as config/ names them`, () => {
    const n = names(c);
    const deployment = find('Deployment', n.deployment) as
      | (Manifest & {
        spec: { replicas: number; template: { spec: { serviceAccountName: string; securityContext: Record<string, unknown>; containers: Container[] } } };
      })
      | undefined;
    assert.ok(deployment, `Deployment ${n.deployment}`);
    assert.ok(find('ServiceAccount', n.serviceAccount));
    assert.ok(find('ClusterRole', n.clusterRole) && find('ClusterRoleBinding', n.clusterRole));
    assert.ok(find('Role', n.leaderElectionRole) && find('RoleBinding', n.leaderElectionRole));
    const pod = deployment.spec.template.spec;
    assert.is(deployment.spec.replicas, 1);
    assert.is(pod.serviceAccountName, n.serviceAccount);
    assert.equal(pod.containers.map((x) => x.name), ['manager']);
    const manager = pod.containers[0] as Container;
    const version = (JSON.parse(readFileSync(join(ROOT, `controllers/${c}/package.json`), 'utf8')) as { version: string }).version;
    assert.is(manager.image, `${n.image}:${version}`, 'image tag = the controller package version');
    assert.equal(Object.keys(manager.resources.requests ?? {}).sort(), ['cpu', 'memory']);
    assert.equal(Object.keys(manager.resources.limits ?? {}).sort(), ['cpu', 'memory']);
    assert.equal(manager.securityContext, {
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      runAsUser: 65532,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    assert.is(pod.securityContext['runAsNonRoot'], true);

    // The arguments, through the controllers' own parser, as the pod would run them.
    const env = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443', POD_NAMESPACE: NAMESPACE };
    assert.ok(manager.env?.some((e) => e.name === 'POD_NAMESPACE' && e.valueFrom?.fieldRef?.fieldPath === 'metadata.namespace'));
    const { config } = parseArgs(manager.args, { env, serviceAccountDir: '/nonexistent' });
    assert.equal(config.leaderElection && { id: config.leaderElection.id, namespace: config.leaderElection.namespace }, { id: n.lease, namespace: NAMESPACE });
    assert.is(config.kubeconfigSource, 'in-cluster');
    const port = (address: string) => Number(address.split(':').pop());
    const ports = Object.fromEntries(manager.ports.map((p) => [p.name, p.containerPort]));
    assert.equal(ports, { healthz: port(config.healthProbeBindAddress), metrics: port(config.metricsBindAddress) });
    assert.equal([manager.livenessProbe.httpGet, manager.readinessProbe.httpGet], [{ path: '/healthz', port: 'healthz' }, {
      path: '/readyz',
      port: 'healthz',
    }]);
  });
}

test('every Lease name differs (five controllers share one namespace)', () => {
  assert.is(new Set(CONTROLLERS.map((c) => names(c).lease)).size, CONTROLLERS.length);
});

test("CC-4 components: every declared variable is used, where it says, with its flag's own default, and documented in the README", async () => {
  const rendered = await renderComponents();
  assert.equal([...new Set(rendered.variables.map((v) => v.name))].sort(), VARIABLES.map((v) => v.name).sort());
  assert.is(rendered.objects.length, objects.length);
  const common = managerFlags() as Record<string, { default: unknown }>;
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  for (const v of VARIABLES) {
    for (const c of v.controllers ?? CONTROLLERS) {
      const main = readFileSync(join(ROOT, `controllers/${c}/src/entry.ts`), 'utf8');
      assert.ok(v.flag in common || new RegExp(`['\\s]${v.flag}'?: flag\\.`).test(main), `controllers/${c} takes --${v.flag}`);
      const d = rendered.objects.find((o) => o.kind === 'Deployment' && o.metadata.name === names(c).deployment);
      const args = (d?.['spec'] as { template: { spec: { containers: { args: string[] }[] } } }).template.spec.containers[0]?.args ?? [];
      assert.ok(args.some((a) => a.startsWith(`--${v.flag}=\${${v.name}:=`)), `${c} gets --${v.flag} from ${v.name}`);
    }
    if (v.flag in common) assert.is(v.default, String(common[v.flag]?.default), `${v.name} = --${v.flag}'s default`);
    assert.ok(readme.includes(`\`${v.name}\``), `README documents ${v.name}`);
  }
});

test("components: with every variable unset, as with each set, the Deployments' common arguments parse", async () => {
  const rendered = await renderComponents();
  const env = { KUBERNETES_SERVICE_HOST: '10.0.0.1', POD_NAMESPACE: NAMESPACE };
  const own = (arg: string) => /^--(fast-track|enableBMHNameBasedPreallocation)=/.test(arg); // the controllers' own flags (checked above)
  for (
    const values of [{}, {
      METAL3_TS_LOG_LEVEL: 'debug',
      METAL3_TS_KUBE_API_QPS: '-1',
      METAL3_TS_KUBE_API_BURST: '100',
      CAPM3_FAST_TRACK: 'true',
      ENABLE_BMH_NAME_BASED_PREALLOCATION: 'true',
    }]
  ) {
    // The controllers' Deployments (the conversion webhook's flags are its own: controllers/conversion/test/manifests.test.ts).
    const controllers = checkComponents(substitute(rendered.text, values)).objects.filter((o) =>
      o.kind === 'Deployment' && o.metadata.labels?.['app.kubernetes.io/component'] === 'controller-manager'
    );
    assert.is(controllers.length, CONTROLLERS.length);
    for (const d of controllers) {
      const args = (d['spec'] as { template: { spec: { containers: { args: string[] }[] } } }).template.spec.containers[0]?.args ?? [];
      const { config } = parseArgs(args.filter((a) => !own(a)), { env, serviceAccountDir: '/nonexistent' });
      if ('METAL3_TS_LOG_LEVEL' in values) assert.equal([config.logLevel, config.kubeApiQps, config.kubeApiBurst], ['debug', -1, 100]);
      else assert.equal([config.logLevel, config.kubeApiQps, config.kubeApiBurst], ['info', 20, 30]);
      for (const a of args.filter(own)) assert.match(a, 'CAPM3_FAST_TRACK' in values ? /=true$/ : /=false$/);
    }
  }
});

const badVariables: [string, string, RegExp][] = [
  ['missing from variables.ts', '--log-level=${METAL3_TS_LOGLEVEL:=info}', /clusterctl variable METAL3_TS_LOGLEVEL is not declared/],
  ['malformed (unclosed)', '--log-level=${METAL3_TS_LOG_LEVEL:=info', /malformed clusterctl variable "\$\{METAL3_TS_LOG_LEVEL:=info/],
];
for (const [what, arg, message] of badVariables) {
  test(`CC-4 components: a variable ${what} in config/ is refused, naming it`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bad-variable-'));
    try {
      writeFileSync(
        join(dir, 'kustomization.yaml'),
        [
          'resources:',
          `  - ${relative(dir, join(CONFIG, 'release'))}`, // kustomize takes relative paths only
          'patches:',
          '  - target: {kind: Deployment, name: metal3-ts-cluster-controller-manager}',
          '    patch: |-',
          '      - op: add',
          '        path: /spec/template/spec/containers/0/args/-',
          `        value: "${arg}"`,
          '',
        ].join('\n'),
      );
      await renderComponents({ dir });
      assert.unreachable('rendered');
    } catch (error) {
      assert.match((error as Error).message, message);
      assert.instance(error, VariableError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test('CC-4 components: the one Namespace is labelled for Pod Security restricted', () => {
  const namespaces = objects.filter((o) => o.kind === 'Namespace');
  assert.equal(namespaces.map((o) => [o.metadata.name, o.metadata.labels?.['pod-security.kubernetes.io/enforce']]), [[NAMESPACE, 'restricted']]);
  assert.ok(parseAllDocuments(readFileSync(join(ROOT, 'metadata.yaml'), 'utf8')).length === 1);
});

test.run();
