// The bundled webhook (src/main.ts through scripts/bundle.ts, what the image runs) as a process:
// a bad flag exits 2 naming it; started before its certificate exists it waits, unready, with
// /readyz naming the missing file (no crash loop while cert-manager issues); once the files appear it
// serves a ConversionReview over TLS; /metrics counts reviews; SIGTERM exits 0 with nothing logged at
// error level. No apiserver: the process never talks to one.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ControllerProcess, eventually, httpGet, type Runtime } from '@metal3-ts/test/harness/controller-process';
import { bundle } from '../../../scripts/bundle.ts';
import { postReview, type TestPki, testPki } from './support.ts';

const test = suite('bundled conversion webhook (the image entry point)');
let work: string;
let outfile: string;
let pki: TestPki;

test.before(async () => {
  work = mkdtempSync(join(tmpdir(), 'metal3-ts-conversion-bundle-'));
  outfile = join(work, 'controller-conversion.mjs');
  await bundle(fileURLToPath(new URL('../src/main.ts', import.meta.url)), outfile, { minify: true });
  pki = testPki();
});

test.after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
  if (pki) rmSync(pki.dir, { recursive: true, force: true });
});

const flags = (
  certDir: string,
) => [
  '--cert-dir',
  certDir,
  '--webhook-port',
  '0',
  '--webhook-host',
  '127.0.0.1',
  '--health-probe-bind-address',
  '127.0.0.1:0',
  '--metrics-bind-address',
  '127.0.0.1:0',
  '--cert-poll-interval',
  '200ms',
];

test('a bad flag exits 2 and names the flag', async () => {
  const p = new ControllerProcess('node', outfile, ['--webhook-port', 'x']);
  const exit = await p.exited;
  assert.is(exit.code, 2);
  assert.ok(p.lines.some((l) => l.msg.includes('--webhook-port')), p.tail());
});

for (const runtime of ['node', 'deno'] as Runtime[]) {
  test(`bundle under ${runtime === 'node' ? 'Node 24' : 'Deno 2'}: unready until its certificate appears (named in /readyz), then converts over TLS, counts in /metrics, exits 0 on SIGTERM`, async () => {
    const certDir = mkdtempSync(join(work, 'certs-'));
    const p = new ControllerProcess(runtime, outfile, flags(certDir));
    try {
      const probes = await p.address('readyz');
      const metrics = await p.address('metrics');
      const waiting = await eventually('/readyz names the missing certificate', async () => {
        const r = await httpGet(probes, '/readyz');
        return r.status === 500 && r.body.includes(`${certDir}/tls.crt: ENOENT`) ? r.body : undefined;
      });
      assert.match(waiting, '[-]serving-certificate failed');
      assert.is((await httpGet(probes, '/healthz')).status, 200, 'alive while waiting: no restart loop');
      pki.rotate(); // into pki.dir; the process reads certDir: copy the pair there as the kubelet would mount it
      copyFileSync(pki.files.keyFile, join(certDir, 'tls.key'));
      copyFileSync(pki.files.certFile, join(certDir, 'tls.crt'));
      await eventually('/readyz 200', async () => ((await httpGet(probes, '/readyz')).status === 200 ? true : undefined));
      const port = Number((await p.waitForLine((l) => l.msg === 'serving conversion webhook'))['port']);
      const object = {
        apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
        kind: 'Metal3Cluster',
        metadata: { name: 'a', namespace: 'n', uid: 'u-a' },
        spec: {},
      };
      const review = {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'ConversionReview',
        request: { uid: 'r1', desiredAPIVersion: 'infrastructure.cluster.x-k8s.io/v1beta2', objects: [object] },
      };
      const answer = await postReview(port, pki.ca.certPem, review);
      assert.is(answer.status, 200);
      assert.is(answer.json.response['uid'], 'r1');
      // The bundle carries the real rules (src/convert): the object comes back at the hub version.
      const result = answer.json.response['result'] as { status: string; message?: string };
      assert.is(result.status, 'Success', result.message);
      assert.is((answer.json.response['convertedObjects'] as { apiVersion: string }[])[0]?.apiVersion, 'infrastructure.cluster.x-k8s.io/v1beta2');
      const text = (await httpGet(metrics, '/metrics')).body;
      assert.match(text, /conversion_webhook_reviews_total\{result="success"\} 1/);
      p.kill('SIGTERM');
      const exit = await p.exited;
      assert.is(exit.code, 0, p.tail());
      assert.not.ok(p.lines.some((l) => l.level === 'error' || l.level === 'raw'), p.tail());
    } finally {
      p.kill('SIGKILL');
    }
  });
}

test.run();
