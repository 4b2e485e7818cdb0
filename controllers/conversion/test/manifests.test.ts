// The conversion webhook's install manifests as kustomize builds them (config/default and
// config/all-in-one, each with ../webhook, ../certmanager and the ../crd-conversion component): the
// pieces name each other consistently (CRD conversion → Service → Pod port; Certificate → Secret →
// volume → --cert-dir; inject-ca-from → Certificate), the Pod is "restricted" with no API access,
// its arguments parse with the webhook's own flag parser, and every CRD stores v1beta2.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { kustomizeBuild } from '@metal3-ts/release/kustomize';
import { CONFIG, NAMESPACE, ROOT } from '@metal3-ts/release/layout';
import { webhookConfig } from '../src/flags.ts';

// Manifests are read loosely: the assertions below are what checks their shape.
type Obj =
  & { kind: string; metadata: { name: string; namespace?: string; annotations?: Record<string, string>; labels?: Record<string, string> } }
  // deno-lint-ignore no-explicit-any
  & Record<string, any>;
const test = suite('conversion webhook install manifests (config/default, config/all-in-one)');
let staged: Obj[] = [];
let allInOne: Obj[] = [];
const build = async (dir: string) => parseAllDocuments(await kustomizeBuild(join(CONFIG, dir))).map((d) => d.toJS() as Obj);
const one = (kind: string, name: string, objects = staged) => {
  const found = objects.filter((o) => o.kind === kind && o.metadata.name === name);
  assert.is(found.length, 1, `${kind} ${name}`);
  return found[0]!;
};

test.before(async () => {
  [staged, allInOne] = await Promise.all([build('default'), build('all-in-one')]);
});

test('the webhook Pod: restricted, no token, no role bound to its ServiceAccount, its arguments parse, its certificate volume is --cert-dir', () => {
  const deployment = one('Deployment', 'metal3-ts-conversion-webhook');
  assert.is(deployment.metadata.namespace, NAMESPACE);
  const pod = deployment['spec'].template.spec;
  assert.is(pod.automountServiceAccountToken, false);
  assert.is(one('ServiceAccount', pod.serviceAccountName).automountServiceAccountToken, false);
  const bound = staged.filter((o) => /RoleBinding$/.test(o.kind) && (o['subjects'] ?? []).some((s: { name: string }) => s.name === pod.serviceAccountName));
  assert.equal(bound, [], 'no RoleBinding or ClusterRoleBinding names the webhook');
  assert.equal(parse(readFileSync(join(ROOT, 'controllers/conversion/deploy/rbac.yaml'), 'utf8')), [], 'deploy/rbac.yaml has no rules');
  const [container] = pod.containers;
  const version = JSON.parse(readFileSync(join(ROOT, 'controllers/conversion/package.json'), 'utf8')).version;
  assert.is(container.image, `metal3-ts/controller-conversion:${version}`);
  assert.equal(
    [
      pod.securityContext.runAsNonRoot,
      container.securityContext.readOnlyRootFilesystem,
      container.securityContext.allowPrivilegeEscalation,
      container.securityContext.capabilities,
    ],
    [true, true, false, { drop: ['ALL'] }],
  );
  const config = webhookConfig(container.args);
  const port = (name: string) => container.ports.find((p: { name: string }) => p.name === name)?.containerPort;
  assert.is(config.webhook.port, port('webhook-server'));
  assert.is(config.probes?.port, port('healthz'));
  assert.is(config.metrics?.port, port('metrics'));
  const mount = container.volumeMounts.find((m: { mountPath: string }) => config.files.certFile.startsWith(`${m.mountPath}/`));
  assert.ok(mount?.readOnly, 'the certificate directory is a read-only mount');
  const volume = pod.volumes.find((v: { name: string }) => v.name === mount.name);
  const certificate = one('Certificate', 'metal3-ts-serving-cert');
  assert.is(volume.secret.secretName, certificate['spec'].secretName, 'the Secret cert-manager writes is the one mounted');
  assert.ok(one('Issuer', certificate['spec'].issuerRef.name));
});

test('every CRD converts through the webhook Service at /convert, with the CA injected from the serving Certificate (all nine, S-3 included)', () => {
  const service = one('Service', 'metal3-ts-webhook-service');
  const pod = one('Deployment', 'metal3-ts-conversion-webhook')['spec'].template;
  assert.ok(Object.entries(service['spec'].selector).every(([k, v]) => pod.metadata.labels[k] === v), 'the Service selects the webhook Pods');
  assert.is(service['spec'].ports[0].targetPort, 'webhook-server');
  const certificate = one('Certificate', 'metal3-ts-serving-cert');
  assert.ok(certificate['spec'].dnsNames.includes(`${service.metadata.name}.${NAMESPACE}.svc`));
  const crds = staged.filter((o) => o.kind === 'CustomResourceDefinition');
  assert.is(crds.length, 9);
  for (const crd of crds) {
    assert.is(crd.metadata.annotations?.['cert-manager.io/inject-ca-from'], `${NAMESPACE}/${certificate.metadata.name}`, crd.metadata.name);
    assert.equal(crd['spec'].conversion, {
      strategy: 'Webhook',
      webhook: {
        conversionReviewVersions: ['v1', 'v1beta1'],
        clientConfig: { service: { namespace: NAMESPACE, name: service.metadata.name, path: '/convert' } },
      },
    }, crd.metadata.name);
  }
});

test('CV-1 every CRD serves v1beta1 and v1beta2 and stores v1beta2; config/all-in-one installs the same webhook, certificate and CRDs', () => {
  const crds = staged.filter((o) => o.kind === 'CustomResourceDefinition');
  for (const crd of crds) {
    const versions = crd['spec'].versions.map((v: { name: string; served: boolean; storage: boolean }) => [v.name, v.served, v.storage]);
    assert.equal(versions, [['v1beta1', true, false], ['v1beta2', true, true]], crd.metadata.name);
  }
  const key = (o: Obj) => `${o.kind}/${o.metadata.name}`;
  const conversion = ['Certificate', 'Issuer', 'Service', 'CustomResourceDefinition'];
  const pick = (objects: Obj[]) => objects.filter((o) => conversion.includes(o.kind) || o.metadata.name === 'metal3-ts-conversion-webhook');
  assert.equal(pick(allInOne).sort((a, b) => key(a).localeCompare(key(b))), pick(staged).sort((a, b) => key(a).localeCompare(key(b))));
  for (const o of pick(staged)) assert.is(o.metadata.labels?.['cluster.x-k8s.io/provider'], 'infrastructure-metal3', key(o));
});

test.run();
