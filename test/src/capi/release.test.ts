// The release manifests adapted to the test environment: the pinned v1.13.5 CRD kustomizations
// (../shared/crds/cluster-api-v1.13.5/kustomize) built as the released components build them, and the
// webhook configuration and manager transforms on inline fixtures.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { upstreamDirectory } from '@metal3-ts/codegen/upstream';
import { resources } from './kustomize.ts';
import { componentCrds, COMPONENTS, localWebhookConfiguration, managerArgs } from './release.ts';

const endpoint = { url: 'https://127.0.0.1:1234', caBundle: 'Q0E=' };
const pinned = join(upstreamDirectory(), 'cluster-api-v1.13.5');
// The pinned folder keeps the bases flat and the kustomizations at their repository paths.
const readPinned = (path: string) =>
  readFileSync(/\/bases\//.test(path) ? join(pinned, path.slice(path.lastIndexOf('/') + 1)) : join(pinned, 'kustomize', path), 'utf8');

type Crd = {
  metadata: { name: string; labels?: Record<string, string> };
  spec: { conversion?: { strategy: string; webhook?: { clientConfig: unknown } }; versions: { name: string; storage: boolean }[] };
};
const crdsOf = (component: string) => componentCrds(readPinned, COMPONENTS.find((c) => c.name === component)!.path, endpoint) as unknown as Crd[];

test('v1.13.5: the kubeadm CRDs carry the v1beta1 and v1beta2 contract labels, core CRDs none (CAPI refuses unlabelled references)', () => {
  for (const component of ['bootstrap', 'controlPlane']) {
    const crds = crdsOf(component);
    assert.is(crds.length, 2, component);
    for (const crd of crds) {
      assert.equal(crd.metadata.labels, { 'cluster.x-k8s.io/v1beta1': 'v1beta1', 'cluster.x-k8s.io/v1beta2': 'v1beta2' }, crd.metadata.name);
    }
  }
  const core = crdsOf('core');
  assert.is(core.length, 13);
  for (const crd of core) assert.is(crd.metadata.labels, undefined, crd.metadata.name);
});

test('v1.13.5: every CRD stores v1beta2 and converts through the local webhook server with the test CA', () => {
  for (const { name } of COMPONENTS) {
    for (const crd of crdsOf(name)) {
      assert.is(crd.spec.versions.find((v) => v.storage)?.name, 'v1beta2', crd.metadata.name);
      assert.is(crd.spec.conversion?.strategy, 'Webhook', crd.metadata.name);
      assert.equal(crd.spec.conversion?.webhook?.clientConfig, { url: 'https://127.0.0.1:1234/convert', caBundle: 'Q0E=' }, crd.metadata.name);
    }
  }
});

test('a webhook configuration gets the component prefix and every client the local URL with the service path', () => {
  const [config] = resources(
    `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: validating-webhook-configuration}
webhooks:
- name: validation.cluster.cluster.x-k8s.io
  clientConfig: {service: {name: webhook-service, namespace: system, path: /validate-cluster}}
  failurePolicy: Fail
`,
    'manifests.yaml',
  );
  const local = localWebhookConfiguration(config!, 'capi-', endpoint);
  assert.is(local.metadata.name, 'capi-validating-webhook-configuration');
  assert.equal(local['webhooks'], [
    { name: 'validation.cluster.cluster.x-k8s.io', clientConfig: { url: 'https://127.0.0.1:1234/validate-cluster', caBundle: 'Q0E=' }, failurePolicy: 'Fail' },
  ]);
  assert.throws(
    () => localWebhookConfiguration({ ...config!, webhooks: [{ name: 'x', clientConfig: { url: 'https://elsewhere' } }] }, '', endpoint),
    /ValidatingWebhookConfiguration validating-webhook-configuration: a webhook without clientConfig.service/,
  );
});

test('manager arguments: the release feature gates with their defaults, minus the flags the test env sets', () => {
  const yaml = `apiVersion: apps/v1
kind: Deployment
metadata: {name: controller-manager}
spec:
  template:
    spec:
      containers:
      - name: manager
        args:
          - "--leader-elect"
          - "--diagnostics-address=\${CAPI_DIAGNOSTICS_ADDRESS:=:8443}"
          - "--insecure-diagnostics=\${CAPI_INSECURE_DIAGNOSTICS:=false}"
          - "--feature-gates=MachinePool=\${EXP_MACHINE_POOL:=true},PriorityQueue=\${EXP_PRIORITY_QUEUE:=true}"
          - "--bootstrap-token-ttl=\${KUBEADM_BOOTSTRAP_TOKEN_TTL:=15m}"
`;
  assert.equal(managerArgs(yaml, 'manager.yaml'), ['--feature-gates=MachinePool=true,PriorityQueue=true', '--bootstrap-token-ttl=15m']);
  assert.throws(() => managerArgs('kind: Deployment\nmetadata: {name: x}\n', 'manager.yaml'), /manager\.yaml: no Deployment with a container named manager/);
});

test.run();
