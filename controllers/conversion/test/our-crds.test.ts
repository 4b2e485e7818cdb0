// Every kind through a real kube-apiserver with OUR CRDs (issue 18, "write one version, read the
// other"): test-only copies of crds/*.yaml serving v1beta1 and v1beta2, v1beta2 stored, converting
// through the in-process webhook running the build's converter (src/converters.ts). Seeded samples
// of each kind (our-crds-samples.ts: valid for our CRD of the version written, CEL included, with the
// CRD defaults in place) are written at one version, spec and then status through /status, read at
// the other, written back there unchanged by a client of that version, and read at the first: it must
// read exactly as written (canonical JSON, all but the metadata the apiserver sets). Then the lab's
// seed-003 manifests, written at v1beta1, read at v1beta2; then the latency of a read that converts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { startEnv, type TestEnv } from '@metal3-ts/test/envtest/env';
import { installCrds } from '@metal3-ts/test/envtest/crds';
import { freshNamespace } from '@metal3-ts/test/envtest/suite';
import type { KubeObject } from '@metal3-ts/test/envtest/http';
import { converter } from '../src/converters.ts';
import { convertObject, hubVersion, kinds, spokeVersion } from '../src/convert/index.ts';
import { canonical, type Json, type JsonMap } from '../src/convert/json.ts';
import { schemaOf } from '../src/convert/testing/schemas.ts';
import { validate } from '../src/convert/testing/validate.ts';
import { apiSample, openGaps, type Version } from './our-crds-samples.ts';
import { asWritten, explain, hasStatusSubresource, ourCrdsWithWebhook, quantile, resourcePath } from './our-crds-support.ts';
import { type InProcessWebhook, startInProcess, type TestPki, testPki } from './support.ts';

const SAMPLES = 6;
const test = suite('every kind through the real apiserver with our CRDs, v1beta2 stored (issue 18)');
let env: TestEnv;
let pki: TestPki;
let webhook: InProcessWebhook;
let ns: string;
const written: { kind: string; name: string }[] = [];
const defaultedSamples = new Map<string, number>();
const refusedWriteBacks: string[] = [];

test.before(async () => {
  pki = testPki();
  webhook = await startInProcess(pki.files, converter);
  env = await startEnv({ crds: false, authorization: 'AlwaysAllow' });
  await installCrds(env.admin.client, ourCrdsWithWebhook(webhook.url, pki.ca.certPem));
  ns = await freshNamespace(env.admin.client, 'our-crds');
  const gaps = [...kinds.keys()].flatMap((k) => openGaps(k).map((g) => `${k} ${g.v1beta1}`));
  if (gaps.length > 0) console.log(`left out of v1beta2 samples, not in our v1beta1 CRD yet (AP-19/AP-20): ${gaps.join(', ')}`);
});

test.after(async () => {
  await env?.stop();
  await webhook?.stop();
  if (pki) rmSync(pki.dir, { recursive: true, force: true });
});

const apiVersionOf = (v: Version) => (v === 'v1beta1' ? spokeVersion : hubVersion);
const client = () => env.admin.client;

/** Creates `object` at `version`; with a status subresource, the status then goes through /status. */
async function write(object: JsonMap, version: Version): Promise<KubeObject> {
  const kind = String(object['kind']);
  const name = String((object['metadata'] as JsonMap)['name']);
  const { status, ...rest } = object;
  const viaStatus = hasStatusSubresource(kind, version) && status !== undefined;
  const created = await client().create(resourcePath(version, ns, kind), viaStatus ? rest : object);
  written.push({ kind, name });
  if (!viaStatus) return created;
  const metadata = { ...(object['metadata'] as JsonMap), resourceVersion: created.metadata?.resourceVersion ?? '' };
  return await client().replace(`${resourcePath(version, ns, kind, name)}/status`, { ...object, metadata });
}

/** A client of `version` writing back what it read, unchanged: the object, then its status. */
async function writeBack(read: KubeObject, version: Version): Promise<void> {
  const kind = String(read.kind);
  const path = resourcePath(version, ns, kind, read.metadata?.name);
  const updated = await client().replace(path, read);
  if (hasStatusSubresource(kind, version) && read['status'] !== undefined) {
    await client().replace(`${path}/status`, { ...read, metadata: { ...read.metadata, resourceVersion: updated.metadata?.resourceVersion } });
  }
}

async function trip(kind: string, from: Version, seed: number): Promise<string | undefined> {
  const to: Version = from === 'v1beta1' ? 'v1beta2' : 'v1beta1';
  const name = `${kind.slice(6).toLowerCase()}-${from}-${seed}`;
  const { object, defaulted } = apiSample(kind, from, seed, name, ns);
  if (defaulted) defaultedSamples.set(kind, (defaultedSamples.get(kind) ?? 0) + 1);
  const actualName = String((object['metadata'] as JsonMap)['name']);
  const where = `${kind} written at ${from}, seed ${seed}`;
  await write(object, from);
  const there = await client().get(resourcePath(to, ns, kind, actualName));
  if (there.apiVersion !== apiVersionOf(to)) return `${where}: read at ${to} came back as ${there.apiVersion}`;
  // What the webhook makes of the object is what the other version reads: nothing pruned or added.
  const expected = convertObject(object as unknown as KubeObject, apiVersionOf(to)) as unknown as JsonMap;
  for (const part of ['spec', 'status']) {
    const [e, a] = [{ [part]: expected[part] }, { [part]: (there as JsonMap)[part] }] as JsonMap[];
    if (canonical(e) !== canonical(a)) return explain(`${where}, ${part} read at ${to}`, kind, to, e!, a!);
  }
  const refused = await writeBack(there, to).then(() => undefined, (e: { code?: number; message: string }) => e);
  if (refused) {
    // v1beta1 allows what v1beta2 forbids ("" keys, so duplicate list-map keys; "" where v1beta2 wants
    // a value); the rules keep such values (the apiserver does not validate conversion output), and a
    // v1beta2 client cannot write the unchanged object back. Anything else refused is a failure.
    const invalid = validate(schemaOf(kind, to, 'ours'), expected as Json);
    if (refused.code !== 422 || invalid.length === 0) return `${where}: writing back at ${to} was refused: ${refused.message}`;
    refusedWriteBacks.push(`${kind} seed ${seed}: ${invalid.join('; ')}`);
  }
  const back = asWritten(await client().get(resourcePath(from, ns, kind, actualName)));
  if (canonical(back) === canonical(object)) return undefined;
  return explain(`${where}, read at ${to}, written back there, read at ${from}`, kind, from, object, back);
}

for (const from of ['v1beta1', 'v1beta2'] as const) {
  const to = from === 'v1beta1' ? 'v1beta2' : 'v1beta1';
  for (const kind of kinds.keys()) {
    test(`CV-1/CV-2/CV-4: ${kind} written at ${from} (status via /status), read at ${to}, written back there, read at ${from}: as written, ${SAMPLES} seeded samples`, async () => {
      const failures: string[] = [];
      for (let seed = 1; seed <= SAMPLES; seed++) {
        const failure = await trip(kind, from, seed);
        if (failure) failures.push(failure);
      }
      assert.ok(failures.length === 0, `${failures.length} of ${SAMPLES} failed; the first:\n${failures[0]}`);
    });
  }
}

test.run();
