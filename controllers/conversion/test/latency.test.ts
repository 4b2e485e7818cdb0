// The figures issue 18 asks of the conversion webhook: latency per object (p50/p99) and memory, of
// the bundled process (src/main.ts, as the image runs it) as
// the apiserver uses it: one object per review over a kept-alive TLS connection (a get or a watch
// event), and one review of N objects (a list). RSS is read from /proc before and after. Printed, not
// asserted against a number: CI is a loaded 2-core machine; every answer is checked to be a Success.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { ControllerProcess, eventually, httpGet, runtimes } from '@metal3-ts/test/harness/controller-process';
import { bundle } from '../../../scripts/bundle.ts';
import { NODE_FLAGS } from '../../../scripts/images/spec.ts';
import { V1BETA1, V1BETA2 } from './metal3cluster-converter.ts';
import { postReview, type TestPki, testPki } from './support.ts';

const N = Number(process.env['METAL3_TS_CONVERSION_BENCH_N'] ?? 1000);
const test = suite('conversion webhook latency and memory (issue 18)');
let work: string;
let pki: TestPki;

test.before(() => {
  work = mkdtempSync(join(tmpdir(), 'metal3-ts-conversion-bench-'));
  pki = testPki();
});
test.after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
  if (pki) rmSync(pki.dir, { recursive: true, force: true });
});

/** A v1beta1 Metal3Cluster as a running cluster has it: endpoint, three failure domains, status with conditions (~1 KiB). */
const cluster = (i: number) => ({
  apiVersion: V1BETA1,
  kind: 'Metal3Cluster',
  metadata: {
    name: `cluster-${i}`,
    namespace: 'metal3',
    uid: `00000000-0000-0000-0000-${String(i).padStart(12, '0')}`,
    resourceVersion: String(1000 + i),
    generation: 1,
  },
  spec: {
    controlPlaneEndpoint: { host: `api.cluster-${i}.example`, port: 6443 },
    cloudProviderEnabled: false,
    failureDomains: { 'rack-a': { controlPlane: true }, 'rack-b': { controlPlane: true, attributes: { row: '2' } }, 'rack-c': {} },
  },
  status: {
    ready: true,
    lastUpdated: '2026-11-26T10:00:00Z',
    conditions: ['Ready', 'BaremetalInfrastructureReady'].map((type) => ({ type, status: 'True', lastTransitionTime: '2026-11-26T10:00:00Z' })),
    v1beta2: {
      conditions: ['Ready', 'Paused'].map((type) => ({
        type,
        status: type === 'Ready' ? 'True' : 'False',
        reason: 'Ok',
        message: '',
        lastTransitionTime: '2026-11-26T10:00:00Z',
        observedGeneration: 1,
      })),
    },
  },
});
const review = (uid: string, objects: unknown[]) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'ConversionReview',
  request: { uid, desiredAPIVersion: V1BETA2, objects },
});
const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

test(`latency per object (p50/p99) and RSS of the bundled webhook process under ${N} objects, one per review and ${N} in one review`, async () => {
  const outfile = join(work, 'bench.mjs');
  await bundle(fileURLToPath(new URL('../src/main.ts', import.meta.url)), outfile, { minify: true });
  const args = [
    '--cert-dir',
    pki.dir,
    '--webhook-port',
    '0',
    '--webhook-host',
    '127.0.0.1',
    '--health-probe-bind-address',
    '127.0.0.1:0',
    '--metrics-bind-address',
    '0',
  ];
  // With the image's own V8 flags (the young generation capped as in every controller image).
  const p = new ControllerProcess('node', outfile, args, {
    command: runtimes.node,
    args: [...NODE_FLAGS, outfile, ...args],
    env: { ...process.env, NO_COLOR: '1' },
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const probes = await p.address('readyz');
    await eventually('/readyz 200', async () => ((await httpGet(probes, '/readyz')).status === 200 ? true : undefined));
    const port = Number((await p.waitForLine((l) => l.msg === 'serving conversion webhook'))['port']);
    const idle = rssMiB(p.child.pid!);
    // Warm-up (JIT, TLS session), not counted.
    for (let i = 0; i < 50; i++) await postReview(port, pki.ca.certPem, review(`w${i}`, [cluster(i)]), agent);
    const single: number[] = [];
    for (let i = 0; i < N; i++) {
      const started = performance.now();
      const answer = await postReview(port, pki.ca.certPem, review(`s${i}`, [cluster(i)]), agent);
      single.push(performance.now() - started);
      assert.is((answer.json.response['result'] as { status: string }).status, 'Success');
    }
    const afterSingles = rssMiB(p.child.pid!);
    const batch: number[] = [];
    for (let round = 0; round < 5; round++) {
      const objects = Array.from({ length: N }, (_, i) => cluster(i));
      const started = performance.now();
      const answer = await postReview(port, pki.ca.certPem, review(`b${round}`, objects), agent);
      batch.push((performance.now() - started) / N);
      assert.is((answer.json.response['convertedObjects'] as unknown[]).length, N);
    }
    const afterBatch = rssMiB(p.child.pid!);
    single.sort((a, b) => a - b);
    batch.sort((a, b) => a - b);
    console.log(
      [
        `conversion webhook, ${N} Metal3Clusters (v1beta1 → v1beta2, ~${
          (JSON.stringify(cluster(0)).length / 1024).toFixed(1)
        } KiB each), bundled process under Node 24 ${NODE_FLAGS.join(' ')}:`,
        `  one object per review (round trip over kept-alive TLS): p50 ${quantile(single, 0.5).toFixed(3)} ms, p99 ${quantile(single, 0.99).toFixed(3)} ms`,
        `  ${N} objects per review (a list): p50 ${(quantile(batch, 0.5) * 1000).toFixed(1)} µs per object (5 rounds)`,
        `  RSS: ${idle.toFixed(1)} MiB idle and ready, ${afterSingles.toFixed(1)} MiB after ${N} single reviews, ${
          afterBatch.toFixed(1)
        } MiB after 5 reviews of ${N}`,
      ].join('\n'),
    );
    p.kill('SIGTERM');
    assert.is((await p.exited).code, 0, p.tail());
  } finally {
    agent.destroy();
    p.kill('SIGKILL');
  }
});

test.run();
