// kubeadm's etcd decisions for a control-plane Node: new cluster, join, leftovers (issue 17).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { etcdCaPem, etcdPlan, initialCluster, staleMembers } from './etcd-membership.ts';
import { portForwardPod } from './kubelet-server.ts';
import { connectTarget } from '../../envtest/node-network.ts';

const test = suite('etcd membership decisions');
const local = (port: number) => ({ localUrl: `http://127.0.0.1:${port}` });

test('the first control-plane Node starts a new cluster, later ones join through a running member, a running one is left alone', () => {
  assert.equal(etcdPlan('cp-0', new Map()), { action: 'new' });
  assert.equal(etcdPlan('cp-1', new Map([['cp-0', local(1)]])), { action: 'join', through: 'http://127.0.0.1:1' });
  assert.equal(etcdPlan('cp-0', new Map([['cp-0', local(1)]])), { action: 'running' });
});

test('initial cluster: every started member and the new one; unstarted members (no name) and a same-named one left out', () => {
  const members = [
    { ID: '1', name: 'cp-0', peerURLs: ['http://127.0.0.1:10'] },
    { ID: '2', name: '', peerURLs: ['http://127.0.0.1:11'] },
    { ID: '3', name: 'cp-1', peerURLs: ['http://127.0.0.1:12'] },
    { ID: '4', name: 'cp-2', peerURLs: ['http://127.0.0.1:13'] },
  ];
  assert.is(initialCluster('cp-2', 'http://127.0.0.1:20', members), 'cp-0=http://127.0.0.1:10,cp-1=http://127.0.0.1:12,cp-2=http://127.0.0.1:20');
  assert.equal(staleMembers('cp-2', members), ['4']);
  assert.equal(staleMembers('cp-3', members), []);
});

test("the etcd CA comes from the Secret's tls.crt; anything else is no CA", () => {
  const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
  assert.is(etcdCaPem({ 'tls.crt': Buffer.from(pem).toString('base64') }), pem);
  assert.is(etcdCaPem({ 'tls.crt': Buffer.from('junk').toString('base64') }), undefined);
  assert.is(etcdCaPem({}), undefined);
  assert.is(etcdCaPem(undefined), undefined);
});

test('kubelet paths and CONNECT requests are read strictly', () => {
  assert.is(portForwardPod('/portForward/kube-system/etcd-cp-0'), 'kube-system/etcd-cp-0');
  assert.is(portForwardPod('/portForward/kube-system/etcd-cp-0?port=2379'), 'kube-system/etcd-cp-0');
  assert.is(portForwardPod('/exec/kube-system/etcd-cp-0'), undefined);
  assert.is(portForwardPod('/portForward/kube-system/../x'), undefined);
  assert.equal(connectTarget('CONNECT cp-0:10250 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'), { host: 'cp-0', port: 10250 });
  assert.is(connectTarget('GET / HTTP/1.1\r\n\r\n'), undefined);
});

test.run();
