// Reading kubeadm's node registration out of (rendered) bootstrap user data.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Buffer } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { kubeletJoinFromUserData } from './kubeadm-config.ts';

const test = suite('kubeadm config in user data');
const fixture = (name: string) => readFileSync(new URL(`./testdata/${name}`, import.meta.url), 'utf8');

test('CAPBK join data: node name and node-labels from JoinConfiguration, a worker', () => {
  const join = kubeletJoinFromUserData(fixture('capbk-join.yaml').replace('{{ ds.meta_data.uuid }}', 'U-1').replace('{{ ds.meta_data.name }}', 'm3m-a'));
  assert.equal(join, { nodeName: 'm3m-a', nodeLabels: ['metal3.io/uuid=U-1'], providerId: undefined, controlPlane: false });
});

test('CAPBK init data: InitConfiguration beside ClusterConfiguration is a control-plane node without a name, and the ClusterConfiguration is kept for kubeadm-config', () => {
  const { clusterConfiguration, ...join } = kubeletJoinFromUserData(fixture('capbk-init.yaml').replace('{{ ds.meta_data.uuid }}', 'U-2'));
  assert.equal(join, { nodeName: undefined, nodeLabels: ['metal3.io/uuid=U-2'], providerId: undefined, controlPlane: true });
  assert.is(clusterConfiguration?.['kind'], 'ClusterConfiguration');
  assert.is(clusterConfiguration?.['controlPlaneEndpoint'], '192.168.111.249:6443');
});

const cloudConfig = (kubeadm: string, encoding?: string) =>
  `#cloud-config\nwrite_files:\n- path: /run/kubeadm/kubeadm.yaml\n${encoding ? `  encoding: ${encoding}\n` : ''}  content: |\n${
    kubeadm
      .split('\n')
      .map((l) => `    ${l}`)
      .join('\n')
  }\n`;

test('v1beta4 list-shaped kubeletExtraArgs, repeated node-labels kept in order', () => {
  const kubeadm = [
    'apiVersion: kubeadm.k8s.io/v1beta4',
    'kind: JoinConfiguration',
    'controlPlane:',
    '  localAPIEndpoint: {}',
    'nodeRegistration:',
    '  name: cp-2',
    '  kubeletExtraArgs:',
    '  - name: node-labels',
    '    value: a=1',
    '  - name: max-pods',
    '    value: "50"',
    '  - name: node-labels',
    '    value: b=2',
    '  - name: provider-id',
    '    value: metal3://ns/h/m',
    '  taints: []',
  ].join('\n');
  assert.equal(kubeletJoinFromUserData(cloudConfig(kubeadm)), {
    nodeName: 'cp-2',
    nodeLabels: ['a=1', 'b=2'],
    providerId: 'metal3://ns/h/m',
    controlPlane: true,
    taints: [],
  });
});

test('base64-encoded write_files content is decoded; explicit taints are read', () => {
  const kubeadm = 'kind: JoinConfiguration\nnodeRegistration:\n  taints:\n  - key: dedicated\n    value: gpu\n    effect: NoExecute\n';
  const encoded = `#cloud-config\nwrite_files:\n- path: /k.yaml\n  encoding: b64\n  content: ${Buffer.from(kubeadm).toString('base64')}\n`;
  assert.equal(kubeletJoinFromUserData(encoded), {
    nodeName: undefined,
    nodeLabels: [],
    providerId: undefined,
    controlPlane: false,
    taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoExecute' }],
  });
});

test('kubelet provider-id argument (v1beta3 map) as upstream templates pass it', () => {
  const kubeadm = "kind: JoinConfiguration\nnodeRegistration:\n  kubeletExtraArgs:\n    node-labels: a=1\n    provider-id: 'metal3://ns/host-0/m3m-0'\n";
  assert.is(kubeletJoinFromUserData(cloudConfig(kubeadm)).providerId, 'metal3://ns/host-0/m3m-0');
  assert.is(kubeletJoinFromUserData('#!/bin/sh\nkubelet --provider-id=metal3://abc --node-labels=a=b\n').providerId, 'metal3://abc');
  assert.is(kubeletJoinFromUserData('#cloud-config\nkubelet:\n  provider-id: "metal3://x/y/z"\n').providerId, 'metal3://x/y/z');
});

test('without a kubeadm document, node-labels lines and --node-labels flags still count', () => {
  const cases: [string, string[], boolean][] = [
    ['#cloud-config\nkubelet:\n  node-labels: "x=1,y=2"\n', ['x=1,y=2'], false],
    ['#!/bin/bash\nkubelet --node-labels=metal3.io/uuid=U --v=2\n', ['metal3.io/uuid=U'], false],
    ["#!/bin/bash\nkubeadm init --config c.yaml\nkubelet --node-labels 'a=b'\n", ['a=b'], true],
    ['', [], false],
    ['not: [yaml', [], false],
  ];
  for (const [text, labels, controlPlane] of cases) {
    const join = kubeletJoinFromUserData(text);
    assert.equal(join.nodeLabels, labels, text);
    assert.is(join.controlPlane, controlPlane, text);
  }
});

test.run();
