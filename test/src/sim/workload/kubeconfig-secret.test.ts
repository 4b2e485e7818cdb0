// Which existing `<cluster>-kubeconfig` Secrets the simulator takes over (issue 17: it owns the Secret
// whoever wrote it first, but leaves a user's own Secret of another type alone, as KCP does).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Secret } from '@metal3-ts/generated/core/v1';
import { KUBECONFIG_SECRET_TYPE, kubeconfigAction } from './kubeconfig-secret.ts';

const test = suite('kubeconfig Secret takeover');
const secret = (type: string | undefined, value: string, controller?: string): Secret => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: {
    name: 'c-kubeconfig',
    ...(controller ? { ownerReferences: [{ apiVersion: 'x/v1', kind: controller, name: 'c', uid: 'u', controller: true }] } : {}),
  },
  ...(type ? { type } : {}),
  data: { value },
});
const wanted = secret(KUBECONFIG_SECRET_TYPE, 'OURS', 'Cluster');

const cases: [string, Secret, ReturnType<typeof kubeconfigAction>][] = [
  ['ours, unchanged', secret(KUBECONFIG_SECRET_TYPE, 'OURS', 'Cluster'), 'keep'],
  ['written by KCP for the controlPlaneEndpoint', secret(KUBECONFIG_SECRET_TYPE, 'KCP', 'KubeadmControlPlane'), 'rewrite'],
  ['ours, adopted by KCP, unchanged', secret(KUBECONFIG_SECRET_TYPE, 'OURS', 'KubeadmControlPlane'), 'keep'],
  ['CAPI type without a controller', secret(KUBECONFIG_SECRET_TYPE, 'OLD'), 'rewrite'],
  ["a user's Opaque Secret", secret('Opaque', 'BYO'), 'foreign'],
  ["a user's Secret without a type", secret(undefined, 'BYO', 'Cluster'), 'foreign'],
];
for (const [name, existing, action] of cases) {
  test(`${name} → ${action}`, () => assert.is(kubeconfigAction(existing, wanted), action));
}

test.run();
