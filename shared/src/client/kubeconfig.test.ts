import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Buffer } from 'node:buffer';
import { stringify } from 'yaml';
import {
  defaultKubeConfigPath,
  inClusterConnection,
  inClusterNamespace,
  KubeConfigError,
  loadKubeConfigFile,
  loadKubeConfigSelection,
  parseKubeConfig,
  resolveKubeConfig,
} from './kubeconfig.ts';

const test = suite('kubeconfig');

const CA = '-----BEGIN CERTIFICATE-----\nY2E=\n-----END CERTIFICATE-----\n';
const CERT = '-----BEGIN CERTIFICATE-----\nY2VydA==\n-----END CERTIFICATE-----\n';
const KEY = '-----BEGIN PRIVATE KEY-----\na2V5\n-----END PRIVATE KEY-----\n';
const b64 = (s: string) => Buffer.from(s).toString('base64');

function config(overrides: { clusters?: unknown[]; users?: unknown[]; contexts?: unknown[]; current?: string } = {}): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: overrides.clusters ?? [
      { name: 'one', cluster: { server: 'https://10.0.0.1:6443/', 'certificate-authority-data': b64(CA) } },
      { name: 'two', cluster: { server: 'https://two.example:443', 'insecure-skip-tls-verify': true, 'tls-server-name': 'api.two' } },
    ],
    users: overrides.users ?? [
      { name: 'admin', user: { 'client-certificate-data': b64(CERT), 'client-key-data': b64(KEY) } },
      { name: 'robot', user: { token: 'abc.def' } },
    ],
    contexts: overrides.contexts ?? [
      { name: 'admin@one', context: { cluster: 'one', user: 'admin', namespace: 'capm3' } },
      { name: 'robot@two', context: { cluster: 'two', user: 'robot' } },
    ],
    'current-context': overrides.current ?? 'admin@one',
  });
}

function throwsKubeConfig(fn: () => unknown, ...fragments: string[]): KubeConfigError {
  try {
    fn();
  } catch (error) {
    assert.instance(error, KubeConfigError);
    for (const f of fragments) assert.ok((error as Error).message.includes(f), `"${(error as Error).message}" lacks "${f}"`);
    return error as KubeConfigError;
  }
  throw new Error('expected a KubeConfigError');
}

let dir = '';
test.before.each(() => {
  dir = mkdtempSync(join(tmpdir(), 'kubeconfig-test-'));
});
test.after.each(() => rmSync(dir, { recursive: true, force: true }));

test('the current context yields server (trailing slash dropped), CA and client certificate from -data fields', () => {
  const selected = resolveKubeConfig(config());
  assert.equal(selected.connection, { server: 'https://10.0.0.1:6443', caPem: CA, clientCertPem: CERT, clientKeyPem: KEY });
  assert.is(selected.context, 'admin@one');
  assert.is(selected.namespace, 'capm3');
});

test('a chosen context yields token, insecure-skip-tls-verify and tls-server-name', () => {
  assert.equal(parseKubeConfig(config(), { context: 'robot@two' }), {
    server: 'https://two.example:443',
    insecureSkipTLSVerify: true,
    tlsServerName: 'api.two',
    token: 'abc.def',
  });
});

test('file paths are read relative to the kubeconfig directory; tokenFile is kept for re-reading', () => {
  mkdirSync(join(dir, 'pki'));
  writeFileSync(join(dir, 'pki', 'ca.crt'), CA);
  writeFileSync(join(dir, 'pki', 'client.crt'), CERT);
  writeFileSync(join(dir, 'pki', 'client.key'), KEY);
  writeFileSync(join(dir, 'token'), 'from-file\n');
  const path = join(dir, 'config');
  writeFileSync(
    path,
    config({
      clusters: [{ name: 'c', cluster: { server: 'https://c:6443', 'certificate-authority': 'pki/ca.crt' } }],
      users: [
        { name: 'files', user: { 'client-certificate': 'pki/client.crt', 'client-key': join(dir, 'pki', 'client.key') } },
        { name: 'tf', user: { tokenFile: 'token' } },
      ],
      contexts: [
        { name: 'files', context: { cluster: 'c', user: 'files' } },
        { name: 'tf', context: { cluster: 'c', user: 'tf' } },
      ],
      current: 'files',
    }),
  );
  assert.equal(loadKubeConfigFile(path), { server: 'https://c:6443', caPem: CA, clientCertPem: CERT, clientKeyPem: KEY });
  const tf = loadKubeConfigSelection(path, 'tf');
  assert.equal(tf.connection, { server: 'https://c:6443', caPem: CA, token: 'from-file', tokenFile: join(dir, 'token') });
  assert.is(tf.namespace, undefined);
});

test('errors name the missing context, cluster, user or field, and list what exists', () => {
  throwsKubeConfig(() => parseKubeConfig(config(), { context: 'nope' }), 'context "nope" not found', 'admin@one, robot@two');
  throwsKubeConfig(() => parseKubeConfig(config({ current: '' })), 'current-context is not set');
  throwsKubeConfig(
    () => parseKubeConfig(config({ contexts: [{ name: 'x', context: { cluster: 'gone', user: 'admin' } }], current: 'x' })),
    'cluster "gone"',
    'clusters: one, two',
  );
  throwsKubeConfig(() => parseKubeConfig(config({ contexts: [{ name: 'x', context: { cluster: 'one', user: 'ghost' } }], current: 'x' })), 'user "ghost"');
  throwsKubeConfig(() => parseKubeConfig(config({ clusters: [{ name: 'one', cluster: {} }] })), 'cluster "one" has no server');
  throwsKubeConfig(() => parseKubeConfig(config({ users: [{ name: 'admin', user: { 'client-certificate-data': b64(CERT) } }] })), 'no client-key');
  throwsKubeConfig(
    () =>
      parseKubeConfig(config({ users: [{ name: 'admin', user: { 'client-key': 'missing.key', 'client-certificate-data': b64(CERT) } }] }), { baseDir: dir }),
    `client-key ${join(dir, 'missing.key')} cannot be read (ENOENT)`,
  );
  throwsKubeConfig(() => loadKubeConfigFile(join(dir, 'absent')), 'cannot read the file');
  throwsKubeConfig(() => parseKubeConfig('- just\n- a list\n'), 'not a kubeconfig');
});

test('exec and auth-provider plugins are rejected with the way out; so are basic auth, impersonation, proxy-url', () => {
  const users = (user: object) => config({ users: [{ name: 'admin', user }] });
  throwsKubeConfig(
    () => parseKubeConfig(users({ exec: { command: 'aws', args: ['eks', 'get-token'] } })),
    'user "admin"',
    'exec credential plugin ("aws")',
    'Transport.fromKubeConfig',
  );
  throwsKubeConfig(() => parseKubeConfig(users({ 'auth-provider': { name: 'oidc', config: {} } })), 'auth-provider ("oidc")', 'Transport.fromKubeConfig');
  throwsKubeConfig(() => parseKubeConfig(users({ username: 'u', password: 'p' })), 'basic auth');
  throwsKubeConfig(() => parseKubeConfig(users({ token: 't', as: 'someone' })), 'impersonation');
  throwsKubeConfig(
    () => parseKubeConfig(config({ clusters: [{ name: 'one', cluster: { server: 'https://x', 'proxy-url': 'http://proxy:3128' } }] })),
    'proxy-url',
  );
  throwsKubeConfig(
    () =>
      parseKubeConfig(
        config({ clusters: [{ name: 'one', cluster: { server: 'https://x', 'certificate-authority-data': b64(CA), 'insecure-skip-tls-verify': true } }] }),
      ),
    'insecure-skip-tls-verify',
  );
});

test('allowFiles: false refuses every file reference (kubeconfigs from Secrets)', () => {
  const noFiles = { allowFiles: false, source: 'secret ns/c-kubeconfig' };
  throwsKubeConfig(
    () => parseKubeConfig(config({ users: [{ name: 'admin', user: { tokenFile: '/var/run/secrets/kubernetes.io/serviceaccount/token' } }] }), noFiles),
    'user "admin": tokenFile refers to a file',
  );
  throwsKubeConfig(
    () => parseKubeConfig(config({ clusters: [{ name: 'one', cluster: { server: 'https://x', 'certificate-authority': '/etc/ca.crt' } }] }), noFiles),
    'certificate-authority refers to a file',
  );
  assert.is(parseKubeConfig(config(), noFiles).server, 'https://10.0.0.1:6443');
});

test('a YAML syntax error reports its line but never the text around it (it may hold a token)', () => {
  const error = throwsKubeConfig(
    () => parseKubeConfig('users:\n- name: a\n  user: {token: "s3cr3t\n', { source: 'secret ns/c-kubeconfig' }),
    'secret ns/c-kubeconfig',
    'not valid YAML',
  );
  assert.not.ok(error.message.includes('s3cr3t'));
});

test('inClusterConnection reads the mounted token and CA, keeps the token file for rotation, brackets IPv6 hosts', () => {
  writeFileSync(join(dir, 'token'), 'sa-token\n');
  writeFileSync(join(dir, 'ca.crt'), CA);
  writeFileSync(join(dir, 'namespace'), 'capm3-system');
  const env = { KUBERNETES_SERVICE_HOST: 'fd00:10:96::1', KUBERNETES_SERVICE_PORT: '443' };
  assert.equal(inClusterConnection({ env, serviceAccountDir: dir }), {
    server: 'https://[fd00:10:96::1]:443',
    caPem: CA,
    token: 'sa-token',
    tokenFile: join(dir, 'token'),
  });
  assert.is(inClusterConnection({ env: { ...env, KUBERNETES_SERVICE_HOST: '10.96.0.1' }, serviceAccountDir: dir }).server, 'https://10.96.0.1:443');
  assert.is(inClusterNamespace(dir), 'capm3-system');
  assert.is(inClusterNamespace(join(dir, 'none')), undefined);
  throwsKubeConfig(() => inClusterConnection({ env: {}, serviceAccountDir: dir }), 'KUBERNETES_SERVICE_HOST');
  throwsKubeConfig(() => inClusterConnection({ env, serviceAccountDir: join(dir, 'none') }), 'service account token', 'ENOENT');
});

test('defaultKubeConfigPath prefers the first existing $KUBECONFIG entry, then ~/.kube/config', () => {
  const a = join(dir, 'a');
  writeFileSync(a, '');
  assert.is(defaultKubeConfigPath({ KUBECONFIG: `${join(dir, 'missing')}:${a}` }, dir), a);
  assert.is(defaultKubeConfigPath({}, dir), undefined);
  mkdirSync(join(dir, '.kube'));
  writeFileSync(join(dir, '.kube', 'config'), '');
  assert.is(defaultKubeConfigPath({}, dir), join(dir, '.kube', 'config'));
});

test.run();
