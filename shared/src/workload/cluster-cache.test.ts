// The cluster cache against loopback HTTP "workload apiservers" and an in-memory Secret reader; the
// real-apiserver version of these cases is test/src/harness/workload.test.ts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Buffer } from 'node:buffer';
import { Client, Transport } from '@metal3-ts/generated';
import { NamespaceResource, type Secret } from '@metal3-ts/generated/core/v1';
import { ManualClock } from '../clock/clock.ts';
import { ClusterCache } from './cluster-cache.ts';
import { ClusterNotReachableError, InvalidKubeconfigSecretError, KubeconfigSecretNotFoundError } from './errors.ts';

const test = suite('cluster cache');

/** A fake apiserver: accepts one bearer token, answers /version and an empty namespace list. */
async function fakeApiserver(token: string): Promise<{ server: Server; url: string; token: string; close(): Promise<void> }> {
  const state = { token };
  const server = createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${state.token}`) {
      res.writeHead(401, { 'Content-Type': 'application/json' });
      return res.end(JSON.stringify({ kind: 'Status', code: 401, reason: 'Unauthorized', message: 'Unauthorized' }));
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(req.url === '/version' ? '{"major":"1"}' : JSON.stringify({ kind: 'NamespaceList', metadata: {}, items: [{ metadata: { name: token } }] }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get token() {
      return state.token;
    },
    set token(t: string) {
      state.token = t;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

const kubeconfig = (server: string, user: Record<string, string>) =>
  JSON.stringify({
    clusters: [{ name: 'c', cluster: { server } }],
    users: [{ name: 'admin', user }],
    contexts: [{ name: 'c', context: { cluster: 'c', user: 'admin' } }],
    'current-context': 'c',
  });

const secret = (rv: string, value: string | undefined): Secret => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'wl-kubeconfig', namespace: 'ns', resourceVersion: rv },
  data: value === undefined ? { other: '' } : { value: Buffer.from(value).toString('base64') },
});

async function rejects(p: Promise<unknown>, kind: abstract new (...args: never[]) => Error, fragment = ''): Promise<Error> {
  try {
    await p;
  } catch (error) {
    assert.instance(error, kind);
    assert.ok((error as Error).message.includes(fragment), (error as Error).message);
    return error as Error;
  }
  throw new Error(`expected ${kind.name}`);
}

const cluster = { namespace: 'ns', name: 'wl' };
// Never used: every test passes a secretReader.
const management = new Client(Transport.fromConnection({ server: 'http://127.0.0.1:1' }));

test('the client is built once per Secret version and rebuilt when the Secret changes', async () => {
  const a = await fakeApiserver('token-a');
  const b = await fakeApiserver('token-b');
  let current: Secret | undefined = secret('1', kubeconfig(a.url, { token: 'token-a' }));
  const cache = new ClusterCache(management, { secretReader: () => current, closeGraceMs: 0 });
  try {
    const first = await cache.get(cluster);
    assert.is(await cache.get(cluster), first);
    const names = async (c: Client) => (await c.api(NamespaceResource).list()).items.map((n) => n.metadata.name);
    assert.equal(await names(first), ['token-a']);
    current = secret('2', kubeconfig(b.url, { token: 'token-b' }));
    const second = await cache.get(cluster);
    assert.is.not(second, first);
    assert.equal(await names(second), ['token-b']);
    current = undefined;
    await rejects(cache.get(cluster), KubeconfigSecretNotFoundError, 'Secret ns/wl-kubeconfig not found');
    assert.not.ok(cache.has(cluster));
  } finally {
    cache.close();
    await Promise.all([a.close(), b.close()]);
  }
});

test('a 401 on any request drops the client; the rebuilt one is refused at the probe', async () => {
  const a = await fakeApiserver('token-a');
  const cache = new ClusterCache(management, { secretReader: () => secret('1', kubeconfig(a.url, { token: 'token-a' })), closeGraceMs: 0 });
  try {
    const client = await cache.get(cluster);
    a.token = 'rotated';
    await client.api(NamespaceResource).list().catch(() => undefined);
    assert.not.ok(cache.has(cluster));
    const error = await rejects(cache.get(cluster), ClusterNotReachableError, '401');
    assert.equal((error as ClusterNotReachableError).cluster, cluster);
  } finally {
    cache.close();
    await a.close();
  }
});

test('a stopped apiserver: the failed request marks the client, the next get() probes and throws ClusterNotReachableError', async () => {
  const a = await fakeApiserver('token-a');
  const clock = new ManualClock();
  const cache = new ClusterCache(management, { clock, secretReader: () => secret('1', kubeconfig(a.url, { token: 'token-a' })), closeGraceMs: 0 });
  try {
    const client = await cache.get(cluster);
    await a.close();
    await client.api(NamespaceResource).list().then(
      () => assert.unreachable('listed'),
      // The kept-alive socket is reset; a new one is refused.
      (error: NodeJS.ErrnoException) => assert.ok(['ECONNRESET', 'ECONNREFUSED'].includes(error.code ?? ''), error.code),
    );
    const error = await rejects(cache.get(cluster), ClusterNotReachableError, 'ECONNREFUSED');
    assert.is((error.cause as NodeJS.ErrnoException).code, 'ECONNREFUSED');
    assert.not.ok(cache.has(cluster));
  } finally {
    cache.close();
  }
});

test('a healthy client is re-probed only after the health-check interval', async () => {
  const a = await fakeApiserver('token-a');
  let probes = 0;
  a.server.prependListener('request', (req) => void (req.url === '/version' && probes++));
  const clock = new ManualClock();
  const cache = new ClusterCache(management, {
    clock,
    healthCheckIntervalMs: 10_000,
    secretReader: () => secret('1', kubeconfig(a.url, { token: 'token-a' })),
  });
  try {
    await cache.get(cluster);
    await clock.advance(9_000);
    await cache.get(cluster);
    assert.is(probes, 1);
    await clock.advance(2_000);
    await cache.get(cluster);
    assert.is(probes, 2);
  } finally {
    cache.close();
    await a.close();
  }
});

test('a Secret without "value", with bad YAML or pointing at local files is an InvalidKubeconfigSecretError', async () => {
  const read = (s: Secret) => new ClusterCache(management, { secretReader: () => s }).get(cluster);
  await rejects(read(secret('1', undefined)), InvalidKubeconfigSecretError, 'missing key "value" in secret data');
  await rejects(read(secret('1', '{{{')), InvalidKubeconfigSecretError, 'not valid YAML');
  await rejects(
    read(secret('1', kubeconfig('https://x', { tokenFile: '/var/run/secrets/kubernetes.io/serviceaccount/token' }))),
    InvalidKubeconfigSecretError,
    'tokenFile refers to a file',
  );
  await rejects(read(secret('1', kubeconfig('https://x', {}).replace('"c"}', '"other"}'))), InvalidKubeconfigSecretError);
});

test('concurrent get() calls share one connection attempt', async () => {
  const a = await fakeApiserver('token-a');
  let probes = 0;
  a.server.prependListener('request', (req) => void (req.url === '/version' && probes++));
  const cache = new ClusterCache(management, { secretReader: () => secret('1', kubeconfig(a.url, { token: 'token-a' })) });
  try {
    const clients = await Promise.all(Array.from({ length: 5 }, () => cache.get(cluster)));
    assert.ok(clients.every((c) => c === clients[0]));
    assert.is(probes, 1);
  } finally {
    cache.close();
    await a.close();
  }
});

test.after(() => management.transport.close());

test.run();
