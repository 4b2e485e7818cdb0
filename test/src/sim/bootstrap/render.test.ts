import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parse, parseAllDocuments } from 'yaml';
import { type Cluster, type Machine, newCluster, newMachine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { type KubeadmConfig, type KubeadmConfigSpec, newKubeadmConfig } from '@metal3-ts/generated/bootstrap.cluster.x-k8s.io/v1beta1';
import { kubeadmConfigFileOf, parseNodeLabels, readNodeRegistration } from './bootstrap-data.ts';
import { CLOUD_CONFIG_HEADER, renderCloudConfig } from './cloud-config.ts';
import { renderIgnition } from './ignition.ts';
import { bootstrapMode, bootstrapTokenFor, KUBEADM_V1BETA3, KUBEADM_V1BETA4, kubeadmApiVersionFor } from './kubeadm-config.ts';
import { SENTINEL_COMMAND, UnresolvedSecretReferenceError } from './plan.ts';

const test = suite('bootstrap rendering (pure)');

type Json = Record<string, unknown>;

const UUID_LABEL = 'metal3.io/uuid={{ ds.meta_data.uuid }}';

const cluster: Cluster = newCluster({
  metadata: { name: 'c1', namespace: 'ns' },
  spec: {
    controlPlaneEndpoint: { host: '192.168.111.249', port: 6443 },
    clusterNetwork: { pods: { cidrBlocks: ['192.168.0.0/18'] }, services: { cidrBlocks: ['10.96.0.0/12'] }, serviceDomain: 'cluster.local' },
  },
});

const machine = (name: string, options: { controlPlane?: boolean; version?: string } = {}): Machine =>
  newMachine({
    metadata: { name, namespace: 'ns', ...(options.controlPlane ? { labels: { 'cluster.x-k8s.io/control-plane': '' } } : {}) },
    spec: { clusterName: 'c1', bootstrap: {}, infrastructureRef: { name }, version: options.version ?? 'v1.30.2' },
  });

const config = (spec: KubeadmConfigSpec, name = 'cfg'): KubeadmConfig =>
  newKubeadmConfig({ metadata: { name, namespace: 'ns', uid: '0b3c1c52-8f0e-4c2e-a5a4-9f1f5d3a7e61' }, spec });

/** Parses rendered cloud-config and the kubeadm documents inside it. */
function parsed(text: string): { doc: Json; kubeadm: Json[] } {
  const doc = parse(text) as Json;
  const file = kubeadmConfigFileOf(text);
  assert.ok(file, 'a kubeadm config file is written');
  return { doc, kubeadm: parseAllDocuments(file).map((d) => d.toJS() as Json) };
}

const workerSpec: KubeadmConfigSpec = {
  joinConfiguration: {
    nodeRegistration: {
      name: '{{ ds.meta_data.name }}',
      kubeletExtraArgs: { 'node-labels': UUID_LABEL, 'provider-id': 'metal3://{{ ds.meta_data.providerid }}', 'cgroup-driver': 'systemd' },
    },
  },
  files: [
    { path: '/etc/keepalived/keepalived.conf', owner: 'root:root', permissions: '0644', content: 'vrrp_instance VI_1 {\n  state MASTER # primary\n}\n' },
    { path: '/etc/b64', encoding: 'base64', content: 'aGVsbG8=' },
  ],
  preKubeadmCommands: ['systemctl enable --now crio kubelet', 'echo "a: b"'],
  postKubeadmCommands: ['echo done'],
  users: [{
    name: 'metal3',
    sudo: 'ALL=(ALL) NOPASSWD:ALL',
    sshAuthorizedKeys: ['ssh-ed25519 AAAA test'],
    lockPassword: false,
    homeDir: '/home/metal3',
    groups: 'wheel, docker',
  }],
  ntp: { enabled: true, servers: ['time.example.com'] },
};

test('a worker joins: header, write_files order, runcmd order, users, ntp, and node-labels in the JoinConfiguration', () => {
  const text = renderCloudConfig(config(workerSpec), machine('w-0'), cluster);
  assert.ok(text.startsWith(CLOUD_CONFIG_HEADER));
  const { doc, kubeadm } = parsed(text);
  const files = doc['write_files'] as Json[];
  assert.equal(
    files.map((f) => f['path']),
    ['/etc/keepalived/keepalived.conf', '/etc/b64', '/run/kubeadm/kubeadm-join-config.yaml', '/run/cluster-api/placeholder'],
  );
  assert.equal(files[0], {
    path: '/etc/keepalived/keepalived.conf',
    owner: 'root:root',
    permissions: '0644',
    content: 'vrrp_instance VI_1 {\n  state MASTER # primary\n}\n',
  });
  assert.equal(files[1], { path: '/etc/b64', encoding: 'base64', content: 'aGVsbG8=' });
  assert.equal(doc['runcmd'], [
    'systemctl enable --now crio kubelet',
    'echo "a: b"',
    `kubeadm join --config /run/kubeadm/kubeadm-join-config.yaml && ${SENTINEL_COMMAND}`,
    'echo done',
  ]);
  assert.equal(doc['users'], [
    {
      name: 'metal3',
      groups: 'wheel, docker',
      homedir: '/home/metal3',
      lock_passwd: false,
      sudo: 'ALL=(ALL) NOPASSWD:ALL',
      ssh_authorized_keys: ['ssh-ed25519 AAAA test'],
    },
  ]);
  assert.equal(doc['ntp'], { enabled: true, servers: ['time.example.com'] });
  assert.is(kubeadm.length, 1);
  const join = kubeadm[0] as Json;
  assert.is(join['apiVersion'], KUBEADM_V1BETA3);
  assert.is(join['kind'], 'JoinConfiguration');
  assert.equal(join['nodeRegistration'], {
    name: '{{ ds.meta_data.name }}',
    kubeletExtraArgs: { 'node-labels': UUID_LABEL, 'provider-id': 'metal3://{{ ds.meta_data.providerid }}', 'cgroup-driver': 'systemd' },
  });
  const discovery = (join['discovery'] as Json)['bootstrapToken'] as Json;
  assert.is(discovery['apiServerEndpoint'], '192.168.111.249:6443');
  assert.match(String(discovery['token']), /^[a-z0-9]{6}\.[a-z0-9]{16}$/);
  assert.is(discovery['unsafeSkipCAVerification'], true);
  assert.is(join['controlPlane'], undefined);
});

test('the first control plane machine initialises: ClusterConfiguration from the Cluster, InitConfiguration with node-labels, verbosity', () => {
  const spec: KubeadmConfigSpec = {
    clusterConfiguration: { apiServer: { extraArgs: { 'audit-log-maxage': '30' }, timeoutForControlPlane: '20m' } },
    initConfiguration: { nodeRegistration: { name: '{{ ds.meta_data.name }}', kubeletExtraArgs: { 'node-labels': UUID_LABEL } } },
    verbosity: 5,
  };
  const { doc, kubeadm } = parsed(renderCloudConfig(config(spec), machine('cp-0', { controlPlane: true }), cluster));
  assert.equal((doc['write_files'] as Json[]).map((f) => f['path']), ['/run/kubeadm/kubeadm.yaml', '/run/cluster-api/placeholder']);
  assert.equal(doc['runcmd'], [`kubeadm init --config /run/kubeadm/kubeadm.yaml --v 5 && ${SENTINEL_COMMAND}`]);
  assert.equal(kubeadm, [
    {
      apiVersion: KUBEADM_V1BETA3,
      kind: 'ClusterConfiguration',
      apiServer: { extraArgs: { 'audit-log-maxage': '30' }, timeoutForControlPlane: '20m' },
      controlPlaneEndpoint: '192.168.111.249:6443',
      clusterName: 'c1',
      kubernetesVersion: 'v1.30.2',
      networking: { dnsDomain: 'cluster.local', podSubnet: '192.168.0.0/18', serviceSubnet: '10.96.0.0/12' },
    },
    {
      apiVersion: KUBEADM_V1BETA3,
      kind: 'InitConfiguration',
      nodeRegistration: { name: '{{ ds.meta_data.name }}', kubeletExtraArgs: { 'node-labels': UUID_LABEL } },
    },
  ]);
});

test('Kubernetes 1.31+ gets kubeadm v1beta4: argument lists sorted by name, the control plane timeout under InitConfiguration.timeouts', () => {
  const spec: KubeadmConfigSpec = {
    clusterConfiguration: {
      apiServer: { extraArgs: { b: '2', a: '1' }, timeoutForControlPlane: '20m' },
      etcd: { local: { extraArgs: { 'quota-backend-bytes': '8589934592' } } },
    },
    initConfiguration: { nodeRegistration: { kubeletExtraArgs: { 'node-labels': UUID_LABEL, 'cgroup-driver': 'systemd' }, imagePullSerial: true } },
  };
  const { kubeadm } = parsed(renderCloudConfig(config(spec), machine('cp-0', { controlPlane: true, version: 'v1.31.1' }), cluster));
  const [clusterConfig, init] = kubeadm as [Json, Json];
  assert.is(clusterConfig['apiVersion'], KUBEADM_V1BETA4);
  assert.equal(clusterConfig['apiServer'], { extraArgs: [{ name: 'a', value: '1' }, { name: 'b', value: '2' }] });
  assert.equal((clusterConfig['etcd'] as Json)['local'], { extraArgs: [{ name: 'quota-backend-bytes', value: '8589934592' }] });
  assert.equal(init['nodeRegistration'], {
    kubeletExtraArgs: [
      { name: 'cgroup-driver', value: 'systemd' },
      { name: 'node-labels', value: UUID_LABEL },
    ],
    imagePullSerial: true,
  });
  assert.equal(init['timeouts'], { controlPlaneComponentHealthCheck: '20m' });
  // The reader gives the same labels whatever the kubeadm API version.
  const text = renderCloudConfig(config(spec), machine('cp-0', { controlPlane: true, version: 'v1.31.1' }), cluster);
  assert.equal(readNodeRegistration(text)?.nodeLabels, { 'metal3.io/uuid': '{{ ds.meta_data.uuid }}' });
});

test('a joining control plane machine gets controlPlane: {} and a given bootstrap token is kept', () => {
  const spec: KubeadmConfigSpec = {
    joinConfiguration: {
      discovery: { bootstrapToken: { token: 'abcdef.0123456789abcdef', caCertHashes: ['sha256:aa'] } },
      nodeRegistration: { kubeletExtraArgs: { 'node-labels': UUID_LABEL } },
    },
  };
  const { kubeadm, doc } = parsed(renderCloudConfig(config(spec), machine('cp-1', { controlPlane: true }), cluster));
  const join = kubeadm[0] as Json;
  assert.is(join['kind'], 'JoinConfiguration');
  assert.equal(join['controlPlane'], {});
  assert.equal((join['discovery'] as Json)['bootstrapToken'], {
    token: 'abcdef.0123456789abcdef',
    caCertHashes: ['sha256:aa'],
    apiServerEndpoint: '192.168.111.249:6443',
  });
  assert.match(String((doc['runcmd'] as string[])[0]), /^kubeadm join /);
});

test('boot commands, disk setup and mounts render as cloud-init keys', () => {
  const spec: KubeadmConfigSpec = {
    bootCommands: ['echo boot'],
    diskSetup: {
      partitions: [{ device: '/dev/sdb', layout: true, overwrite: false, tableType: 'gpt' }],
      filesystems: [{ device: '/dev/sdb1', filesystem: 'ext4', label: 'data', extraOpts: ['-F'] }],
    },
    mounts: [['LABEL=data', '/var/lib/data']],
  };
  const { doc } = parsed(renderCloudConfig(config(spec), machine('w-1'), cluster));
  assert.equal(doc['bootcmd'], ['echo boot']);
  assert.equal(doc['disk_setup'], { '/dev/sdb': { table_type: 'gpt', layout: true, overwrite: false } });
  assert.equal(doc['fs_setup'], [{ label: 'data', filesystem: 'ext4', device: '/dev/sdb1', extra_opts: ['-F'] }]);
  assert.equal(doc['mounts'], [['LABEL=data', '/var/lib/data']]);
});

test('unresolved secret references are refused, not rendered empty', () => {
  const withFile = config({ files: [{ path: '/etc/x', contentFrom: { secret: { name: 's', key: 'k' } } }] });
  assert.throws(() => renderCloudConfig(withFile, machine('w'), cluster), (e: unknown) => e instanceof UnresolvedSecretReferenceError);
  const withUser = config({ users: [{ name: 'u', passwdFrom: { secret: { name: 's', key: 'k' } } }] });
  assert.throws(() => renderIgnition(withUser, machine('w'), cluster), (e: unknown) => e instanceof UnresolvedSecretReferenceError);
});

test('an empty config still renders valid data that joins', () => {
  const { doc, kubeadm } = parsed(renderCloudConfig(newKubeadmConfig({ metadata: { name: 'bare' } }), machine('w-2')));
  assert.equal(doc['runcmd'], [`kubeadm join --config /run/kubeadm/kubeadm-join-config.yaml && ${SENTINEL_COMMAND}`]);
  assert.is((kubeadm[0] as Json)['kind'], 'JoinConfiguration');
  assert.is(doc['users'], undefined);
});

test('Ignition: valid 2.3.0 JSON with the same kubeadm file, the commands in a run-once unit, users and NTP', () => {
  const text = renderIgnition(config(workerSpec), machine('w-0'), cluster);
  const ign = JSON.parse(text) as { ignition: Json; passwd: { users: Json[] }; storage: { files: Json[] }; systemd: { units: Json[] } };
  assert.equal(ign.ignition, { version: '2.3.0' });
  assert.equal(
    ign.storage.files.map((f) => f['path']),
    [
      '/etc/keepalived/keepalived.conf',
      '/etc/b64',
      '/run/kubeadm/kubeadm-join-config.yaml',
      '/run/cluster-api/placeholder',
      '/etc/kubeadm.sh',
      '/etc/ntp.conf',
    ],
  );
  assert.equal(ign.storage.files[1], { filesystem: 'root', path: '/etc/b64', contents: { source: 'data:;base64,aGVsbG8=' } });
  assert.equal(ign.storage.files[0]?.['mode'], 0o644);
  assert.equal(ign.storage.files[0]?.['user'], { name: 'root' });
  assert.equal(kubeadmConfigFileOf(text), kubeadmConfigFileOf(renderCloudConfig(config(workerSpec), machine('w-0'), cluster)));
  assert.equal(ign.systemd.units.map((u) => u['name']), ['kubeadm.service', 'ntpd.service']);
  assert.equal(ign.passwd.users, [{ name: 'metal3', homeDir: '/home/metal3', groups: ['wheel', 'docker'], sshAuthorizedKeys: ['ssh-ed25519 AAAA test'] }]);
  const registration = readNodeRegistration(text);
  assert.equal(registration?.nodeLabels, { 'metal3.io/uuid': '{{ ds.meta_data.uuid }}' });
  assert.is(registration?.name, '{{ ds.meta_data.name }}');
});

test('readNodeRegistration: kind, name, kubelet arguments and parsed node-labels; nothing for foreign data', () => {
  const registration = readNodeRegistration(renderCloudConfig(config(workerSpec), machine('w-0'), cluster));
  assert.equal(registration, {
    kind: 'JoinConfiguration',
    name: '{{ ds.meta_data.name }}',
    kubeletExtraArgs: { 'node-labels': UUID_LABEL, 'provider-id': 'metal3://{{ ds.meta_data.providerid }}', 'cgroup-driver': 'systemd' },
    nodeLabels: { 'metal3.io/uuid': '{{ ds.meta_data.uuid }}' },
  });
  assert.is(readNodeRegistration('#cloud-config\nruncmd: [echo hi]\n'), undefined);
  assert.equal(parseNodeLabels('a=1, b=2,,c'), { a: '1', b: '2', c: '' });
});

test('decisions: init or join, kubeadm API version, bootstrap token', () => {
  const modes: [KubeadmConfigSpec, boolean, string][] = [
    [{}, false, 'join'],
    [{ initConfiguration: {} }, false, 'join'],
    [{}, true, 'init'],
    [{ initConfiguration: {} }, true, 'init'],
    [{ joinConfiguration: {} }, true, 'join'],
  ];
  for (const [spec, controlPlane, mode] of modes) assert.is(bootstrapMode(spec, machine('m', { controlPlane })), mode, JSON.stringify([spec, controlPlane]));
  const versions: [string | undefined, string][] = [
    [undefined, KUBEADM_V1BETA3],
    ['v1.29.0', KUBEADM_V1BETA3],
    ['v1.30.9', KUBEADM_V1BETA3],
    ['v1.31.0', KUBEADM_V1BETA4],
    ['1.33.1', KUBEADM_V1BETA4],
    ['garbage', KUBEADM_V1BETA3],
  ];
  for (const [version, api] of versions) assert.is(kubeadmApiVersionFor(version), api, String(version));
  assert.is(bootstrapTokenFor('x'), bootstrapTokenFor('x'));
  assert.is.not(bootstrapTokenFor('x'), bootstrapTokenFor('y'));
  for (const seed of ['', 'a', 'ns/name', '0b3c1c52-8f0e-4c2e-a5a4-9f1f5d3a7e61']) assert.match(bootstrapTokenFor(seed), /^[a-z0-9]{6}\.[a-z0-9]{16}$/);
});

test.run();
