// The webhook server on its own (no apiserver): what a bad client gets (wrong path, method, content
// type, a body over the limit, a body that is not a ConversionReview), that nothing it says about a
// failed conversion reaches the log but names, and the certificate watcher's rules (wait for a missing
// pair, keep the last good pair when a new one is broken).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { connect } from 'node:tls';
import { newLogger } from '@metal3-ts/shared/log/logger';
import { CertificateWatcher, readServingPair } from '../src/certificates.ts';
import { eventually } from '@metal3-ts/test/testing/eventually';
import { APISERVER_IDLE_MS, KEEP_ALIVE_MS, startWebhookServer, type WebhookServer, type WebhookServerOptions } from '../src/server.ts';
import { metal3ClusterConverter, REFUSED_HOST, V1BETA1, V1BETA2 } from './metal3cluster-converter.ts';
import { type TestPki, testPki } from './support.ts';

const test = suite('conversion webhook server: bad requests, logs, certificate files');
let pki: TestPki;
let server: WebhookServer;
const logged: string[] = [];

test.before(async () => {
  pki = testPki();
  const watcher = new CertificateWatcher(pki.files, { intervalMs: 60_000, log: newLogger({ sink: () => {} }), onChange: () => {} });
  watcher.check();
  server = await startWebhookServer({
    bind: { host: '127.0.0.1', port: 0 },
    certificate: watcher.current!,
    converter: metal3ClusterConverter,
    maxRequestBytes: 4096,
    requestTimeoutMs: 5000,
    log: newLogger({ level: 'debug', sink: (line) => logged.push(line) }),
  });
});

test.after(async () => {
  await server?.close(1000);
  if (pki) rmSync(pki.dir, { recursive: true, force: true });
});

function send(
  path: string,
  options: { method?: string; type?: string; body?: string; chunked?: boolean } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const body = options.body ?? '';
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        path,
        method: options.method ?? 'POST',
        ca: pki.ca.certPem,
        servername: 'localhost',
        headers: { 'Content-Type': options.type ?? 'application/json', ...(options.chunked ? {} : { 'Content-Length': Buffer.byteLength(body) }) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    if (options.chunked) { for (let i = 0; i < body.length; i += 1000) req.write(body.slice(i, i + 1000)); }
    req.end(options.chunked ? undefined : body);
  });
}

const review = (objects: unknown[]) =>
  JSON.stringify({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { uid: 'u1', desiredAPIVersion: V1BETA2, objects } });

const cases: [string, string, Parameters<typeof send>[1], number, RegExp][] = [
  ['another path', '/mutate', {}, 404, /not found/],
  ['GET on /convert', '/convert', { method: 'GET' }, 405, /POST a ConversionReview/],
  ['a YAML body', '/convert', { type: 'application/yaml', body: 'a: 1' }, 415, /expected application\/json/],
  ['a body over --max-request-bytes (declared length)', '/convert', { body: 'x'.repeat(5000) }, 413, /over 4096 bytes/],
  ['a body over --max-request-bytes (chunked, no length)', '/convert', { body: 'x'.repeat(9000), chunked: true }, 413, /over 4096 bytes/],
  ['a body that is not JSON', '/convert', { body: '{' }, 400, /not JSON/],
  ['JSON that is not a review', '/convert', { body: '{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1"}' }, 400, /^request: missing/],
];
for (const [title, path, options, status, body] of cases) {
  test(`${title}: ${status}`, async () => {
    const answer = await send(path, options);
    assert.is(answer.status, status, answer.body);
    assert.match(answer.body, body);
  });
}

test('a review converts; a refused object is a 200 Failure naming object and field, logged by name and field only', async () => {
  const ok = JSON.parse(
    (await send('/convert', { body: review([{ apiVersion: V1BETA1, kind: 'Metal3Cluster', metadata: { name: 'a', namespace: 'n' }, spec: {} }]) })).body,
  );
  assert.is(ok.response.result.status, 'Success');
  assert.is(ok.response.convertedObjects[0].apiVersion, V1BETA2);
  const secretish = 'user-data-that-must-not-be-logged';
  const objects = [{
    apiVersion: V1BETA1,
    kind: 'Metal3Cluster',
    metadata: { name: 'b', namespace: 'n' },
    spec: { controlPlaneEndpoint: { host: REFUSED_HOST }, note: secretish },
  }];
  const failed = await send('/convert', { body: review(objects) });
  assert.is(failed.status, 200);
  const { response } = JSON.parse(failed.body);
  assert.equal(response.convertedObjects, []);
  assert.match(response.result.message, `converting Metal3Cluster n/b from ${V1BETA1} to ${V1BETA2}: spec.controlPlaneEndpoint.host:`);
  const line = logged.map((l) => JSON.parse(l)).find((l) => l.msg === 'conversion failed');
  assert.ok(line, logged.join('\n'));
  assert.equal([line.kind, line.namespace, line.name, line.field], ['Metal3Cluster', 'n', 'b', 'spec.controlPlaneEndpoint.host']);
  assert.not.ok(logged.some((l) => l.includes(secretish) || l.includes(REFUSED_HOST)), 'no object content in the log');
});

test('certificate watcher: waits for a missing pair (problem names the file), keeps the last good pair when the new one is broken, takes a good one', () => {
  const dir = testPki();
  try {
    const changes: string[] = [];
    rmSync(dir.files.certFile);
    const watcher = new CertificateWatcher(dir.files, { intervalMs: 60_000, log: newLogger({ sink: () => {} }), onChange: (p) => changes.push(p.digest) });
    watcher.check();
    assert.is(watcher.current, undefined);
    assert.match(watcher.problem ?? '', `certificate ${dir.files.certFile}: ENOENT`);
    const first = dir.rotate();
    watcher.check();
    assert.ok(watcher.current && watcher.problem === undefined);
    assert.equal(changes, [], 'the first pair is not a change');
    const before = watcher.current.digest;
    writeFileSync(dir.files.keyFile, dir.ca.keyPem); // a key that does not match the certificate
    watcher.check();
    assert.is(watcher.current.digest, before, 'still the last good pair');
    assert.match(watcher.problem ?? '', /tls.crt and .*tls.key: /);
    assert.not.match(watcher.problem ?? '', 'PRIVATE KEY');
    writeFileSync(dir.files.keyFile, first.keyPem);
    dir.rotate();
    watcher.check();
    assert.is(changes.length, 1);
    assert.is(watcher.problem, undefined);
  } finally {
    rmSync(dir.dir, { recursive: true, force: true });
  }
});

/** A server of its own for a test that closes it or needs other limits; quiet. */
const anotherServer = (options: Partial<Pick<WebhookServerOptions, 'requestTimeoutMs' | 'keepAliveMs'>> = {}) =>
  startWebhookServer({
    bind: { host: '127.0.0.1', port: 0 },
    certificate: readServingPair(pki.files),
    converter: metal3ClusterConverter,
    maxRequestBytes: 4096,
    requestTimeoutMs: 5000,
    ...options,
    log: newLogger({ sink: () => {} }),
  });

/** A POST whose body is sent in two halves: the second only when `second()` is called. */
function halfSent(port: number, body: string) {
  let finish!: () => void;
  const answered = new Promise<{ status: number; body: string } | { error: string }>((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/convert',
        method: 'POST',
        ca: pki.ca.certPem,
        servername: 'localhost',
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    req.write(body.slice(0, 10));
    finish = () => req.end(body.slice(10));
  });
  return { answered, second: () => finish() };
}

test('a request not received in full within --request-timeout is dropped; the server keeps serving', async () => {
  const slow = await anotherServer({ requestTimeoutMs: 500 });
  try {
    const stalled = halfSent(slow.port, review([]));
    const outcome = await stalled.answered; // never sends the rest: the server must end it
    assert.ok('error' in outcome ? true : outcome.status === 408, JSON.stringify(outcome));
  } finally {
    await slow.close(1000);
  }
});

test('an idle kept-alive connection is closed only after the keep-alive time, by default longer than the apiserver keeps its own', async () => {
  assert.ok(KEEP_ALIVE_MS > APISERVER_IDLE_MS, 'the apiserver gives an idle connection up first');
  const keepAliveMs = 300;
  const short = await anotherServer({ keepAliveMs });
  try {
    // A raw TLS connection: an Agent would hide when the server closed it.
    const socket = connect({ host: '127.0.0.1', port: short.port, ca: pki.ca.certPem, servername: 'localhost' });
    const answered = new Promise<number>((resolve) => socket.once('data', () => resolve(performance.now())));
    const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now())));
    socket.write('GET /nothing HTTP/1.1\r\nHost: localhost\r\n\r\n');
    const idleFor = (await closed) - (await answered);
    // Node adds up to a second of its own (keepAliveTimeoutBuffer); far below the 5 s of its default.
    assert.ok(idleFor >= keepAliveMs - 50 && idleFor < 5000, `closed ${idleFor.toFixed(0)} ms after the answer, keep-alive ${keepAliveMs} ms`);
  } finally {
    await short.close(1000);
  }
});

test('SIGTERM-style close: a review in flight is answered, then the server closes', async () => {
  const other = await anotherServer();
  const inFlight = halfSent(other.port, review([{ apiVersion: V1BETA1, kind: 'Metal3Cluster', metadata: { name: 'f', namespace: 'n' }, spec: {} }]));
  await eventually('the review is in flight', () => (other.inFlight() === 1 ? true : undefined));
  const closed = other.close(10_000);
  inFlight.second();
  const outcome = await inFlight.answered;
  assert.ok('status' in outcome && outcome.status === 200, JSON.stringify(outcome));
  assert.is(JSON.parse((outcome as { body: string }).body).response.result.status, 'Success');
  await closed;
});

test.run();
