// Every kind through a real kube-apiserver with OUR CRDs (issue 18, "write one version, read the
// other"): test-only copies of crds/*.yaml serving v1beta1 and v1beta2, v1beta2 stored, converting
// through the in-process webhook running the build's converter (src/converters.ts). Seeded samples
// of each kind (src/convert/testing/samples.ts: valid for our CRD of the version written, CEL included, with that
// version's CRD defaults in place) are written at one version, spec and then status through /status,
// read at the other (what the rules make of them, nothing pruned), written back there unchanged by a
// client of that version, and read at the first: exactly as written (canonical JSON; all but the
// metadata the apiserver sets), with no exemption: v1beta2's CRD defaults, which the apiserver fills
// in whenever it reads the stored object, are in the hub the conversion made (src/convert/defaults.ts),
// so a v1beta1 object reads back as written around them. Then the lab's seed-003 manifests,
// written at v1beta1, read at v1beta2; AP-19/AP-20's fields both ways; the latency of a converting read.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { startEnv, type TestEnv } from '@metal3-ts/test/envtest/env';
import { installCrds } from '@metal3-ts/test/envtest/crds';
import { freshNamespace } from '@metal3-ts/test/envtest/suite';
import type { KubeObject } from '@metal3-ts/test/envtest/http';
import { converter } from '../src/converters.ts';
import { hubDataAnnotation, hubVersion, kinds, spokeDataAnnotation, spokeVersion } from '../src/convert/index.ts';
import { canonical, isMap, type Json, type JsonMap } from '../src/convert/json.ts';
import { schemaOf } from '../src/convert/testing/schemas.ts';
import { validate } from '../src/convert/testing/validate.ts';
import { apiSample, convert, defaulted, readAt, type Version } from '../src/convert/testing/samples.ts';
import { asWritten, explain, hasStatusSubresource, ourCrdsWithWebhook, quantile, resourcePath } from './our-crds-support.ts';
import { type InProcessWebhook, startInProcess, type TestPki, testPki } from './support.ts';

const SAMPLES = 6;
const test = suite('every kind through the real apiserver with our CRDs, v1beta2 stored (issue 18)');
let env: TestEnv;
let pki: TestPki;
let webhook: InProcessWebhook;
let ns: string;
/** Every object the suite wrote, for the latency figures. */
const written: { kind: string; name: string; namespace: string }[] = [];
/** v1beta1 samples holding values v1beta2 forbids, written back at v1beta2 unchanged all the same. */
const invalidWrittenBack: string[] = [];
/** Samples whose conversion needed the lossless annotation (the rules alone would have lost something). */
const annotated = { v1beta1: 0, v1beta2: 0 };

test.before(async () => {
  pki = testPki();
  webhook = await startInProcess(pki.files, converter);
  env = await startEnv({ crds: false, authorization: 'AlwaysAllow' });
  await installCrds(env.admin.client, ourCrdsWithWebhook(webhook.url, pki.ca.certPem));
  ns = await freshNamespace(env.admin.client, 'our-crds');
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
  written.push({ kind, name, namespace: ns });
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
  const object = apiSample(kind, from, seed, `${kind.slice(6).toLowerCase()}-${from}-${seed}`, ns);
  const name = String((object['metadata'] as JsonMap)['name']);
  const where = `${kind} written at ${from}, seed ${seed}`;
  await write(object, from);
  const there = await client().get(resourcePath(to, ns, kind, name));
  if (there.apiVersion !== apiVersionOf(to)) return `${where}: read at ${to} came back as ${there.apiVersion}`;
  // The other version reads what the rules make of the object (a hub with v1beta2's CRD defaults): nothing pruned, nothing else added.
  const expected = readAt(object, to);
  const annotations = (expected['metadata'] as JsonMap)['annotations'];
  if (isMap(annotations) && (annotations[hubDataAnnotation] ?? annotations[spokeDataAnnotation]) !== undefined) annotated[from]++;
  for (const part of ['spec', 'status']) {
    const [e, a] = [{ [part]: expected[part] }, { [part]: (there as JsonMap)[part] }] as JsonMap[];
    if (canonical(e) !== canonical(a)) return explain(`${where}, ${part} read at ${to}`, kind, to, e!, a!);
  }
  // v1beta1 allows values v1beta2 forbids ("" keys and names, an MTU under 1280); the rules keep them
  // (the apiserver does not validate conversion output) and a v1beta2 client still writes the object
  // back unchanged (the apiserver ratchets unchanged values). Duplicate keys in a DataTemplate's lists,
  // which CEL's list-map equality cannot ratchet (its immutability rules refused them), never reach
  // the hub (src/convert/unique.ts).
  const invalid = to === 'v1beta2' ? validate(schemaOf(kind, to, 'ours'), expected as Json) : [];
  if (kind === 'Metal3DataTemplate' && invalid.some((e) => e.includes('duplicate'))) return `${where}: the hub has duplicate keys: ${invalid.join('; ')}`;
  const refused = await writeBack(there, to).then(() => undefined, (e: Error) => e);
  if (refused) return `${where}: writing back at ${to} was refused: ${refused.message}`;
  if (invalid.length > 0) invalidWrittenBack.push(`${kind} seed ${seed}: ${invalid.join('; ')}`);
  const back = asWritten(await client().get(resourcePath(from, ns, kind, name)));
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

test('AP-19/AP-20/CV-12: a v1beta2 fromBootMAC, link names and a bond option without a value read at v1beta1, written back there unchanged and read at v1beta2: as written', async () => {
  const object = defaulted({
    apiVersion: hubVersion,
    kind: 'Metal3DataTemplate',
    metadata: { name: 'boot-mac', namespace: ns },
    spec: {
      clusterName: 'c1',
      metaData: { fromHostInterfaces: [{ key: 'boot-mac', fromBootMAC: true }, { key: 'eth1-mac', interface: 'eth1' }] },
      networkData: {
        links: {
          ethernets: [{ id: 'eth0', name: 'eno1', type: 'phy', macAddress: { fromHostInterface: 'eth0' } }],
          bonds: [{
            id: 'bond0',
            name: 'bond0',
            bondMode: 'active-backup',
            bondLinks: ['eth0'],
            macAddress: { fromHostInterface: 'eth0' },
            parameters: [{ name: 'miimon', value: 100 }, { name: 'use_carrier' }],
          }],
          vlans: [{ id: 'vlan1', name: 'eno1.1', vlanID: 1, vlanLink: 'eth0', macAddress: { fromHostInterface: 'eth0' } }],
        },
      },
    },
  }, 'v1beta2');
  const path = resourcePath('v1beta2', ns, 'Metal3DataTemplate', 'boot-mac');
  await client().create(resourcePath('v1beta2', ns, 'Metal3DataTemplate'), object);
  const v1 = await client().get(resourcePath('v1beta1', ns, 'Metal3DataTemplate', 'boot-mac')) as unknown as JsonMap;
  const expected = convert(object, 'v1beta1');
  assert.is(
    canonical({ spec: v1['spec'] } as Json),
    canonical({ spec: expected['spec'] } as Json),
    explain('read at v1beta1', 'Metal3DataTemplate', 'v1beta1', expected, v1),
  );
  const spec = v1['spec'] as { metaData: { fromHostInterfaces: JsonMap[] }; networkData: { links: Record<string, JsonMap[]> } };
  assert.is(spec.metaData.fromHostInterfaces[0]!['fromBootMAC'], true, 'fromBootMAC at v1beta1');
  assert.equal(['ethernets', 'bonds', 'vlans'].map((l) => spec.networkData.links[l]![0]!['name']), ['eno1', 'bond0', 'eno1.1'], 'link names at v1beta1');
  await writeBack(v1 as unknown as KubeObject, 'v1beta1');
  const back = asWritten(await client().get(path));
  assert.is(canonical(back), canonical(object), explain('written back at v1beta1, read at v1beta2', 'Metal3DataTemplate', 'v1beta2', object, back));
});

test('CV-11/CV-14: a v1beta1 DataTemplate with duplicate keys ("" twice, one route network twice) read at v1beta2 with one item per key, written back there unchanged (not refused as a metaData/networkData change), read at v1beta1 as written', async () => {
  const route = (gateway: string) => ({ network: '0.0.0.0', prefix: 0, gateway: { string: gateway } });
  const object = defaulted({
    apiVersion: spokeVersion,
    kind: 'Metal3DataTemplate',
    metadata: { name: 'duplicates', namespace: ns },
    spec: {
      clusterName: 'c1',
      metaData: { strings: [{ key: '', value: 'a' }, { key: 'x', value: '1' }, { key: '', value: 'b' }] },
      networkData: {
        links: { ethernets: [{ type: 'phy', id: 'eth0', macAddress: { fromHostInterface: 'eth0' } }] },
        networks: { ipv4: [{ id: 'n', link: 'eth0', ipAddressFromIPPool: 'pool-1', routes: [route('10.0.0.1'), route('10.0.0.2')] }] },
      },
    },
  }, 'v1beta1');
  await client().create(resourcePath('v1beta1', ns, 'Metal3DataTemplate'), object);
  const v2 = await client().get(resourcePath('v1beta2', ns, 'Metal3DataTemplate', 'duplicates'));
  const spec = v2['spec'] as { metaData: unknown; networkData: { networks: { ipv4: { routes: unknown[] }[] } } };
  assert.equal(spec.metaData, { strings: [{ key: 'x', value: '1' }, { key: '', value: 'b' }] });
  assert.is(spec.networkData.networks.ipv4[0]!.routes.length, 1);
  await writeBack(v2, 'v1beta2');
  const back = asWritten(await client().get(resourcePath('v1beta1', ns, 'Metal3DataTemplate', 'duplicates')));
  assert.is(canonical(back), canonical(object), explain('duplicates', 'Metal3DataTemplate', 'v1beta1', object, back));
});

test('CV-2/CV-4: a v1beta1 /status write rewrites the v1beta1 annotation on the stored hub; a v1beta2 one leaves it stale, and a v1beta1 read then takes the new status without reviving the old phase', async () => {
  const path = (v: Version, sub = '') => `${resourcePath(v, ns, 'Metal3Machine', 'status-writes')}${sub}`;
  const savedStatus = async () => {
    const hub = await client().get(path('v1beta2'));
    return (JSON.parse(String(hub.metadata?.annotations?.[spokeDataAnnotation])) as JsonMap)['status'];
  };
  await client().create(resourcePath('v1beta1', ns, 'Metal3Machine'), {
    apiVersion: spokeVersion,
    kind: 'Metal3Machine',
    metadata: { name: 'status-writes', namespace: ns },
    spec: { image: { url: 'http://img.example/ubuntu.qcow2', checksum: 'abc123' } },
  });
  for (const phase of ['Provisioning', 'Provisioned']) {
    const v1 = await client().get(path('v1beta1'));
    await client().replace(path('v1beta1', '/status'), { ...v1, status: { ready: phase === 'Provisioned', phase } });
    assert.equal(await savedStatus(), { ready: phase === 'Provisioned', phase }, `the annotation follows the v1beta1 /status write (${phase})`);
  }
  const conditions = [{ type: 'Ready', status: 'True', reason: 'Provisioned', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }];
  const v2 = await client().get(path('v1beta2'));
  await client().replace(path('v1beta2', '/status'), { ...v2, status: { ...(v2['status'] as JsonMap), conditions } });
  assert.equal(await savedStatus(), { ready: true, phase: 'Provisioned' }, 'a v1beta2 /status write leaves the annotation as it was');
  const v1 = await client().get(path('v1beta1'));
  assert.equal(v1['status'], { ready: true, v1beta2: { conditions } }, 'the new status, no stale phase');
});

const manifests = fileURLToPath(new URL('../../../test/e2e/manifests/', import.meta.url));

test('seed 003: the lab manifests (test/e2e/manifests) written at v1beta1 read at v1beta2 as fully valid v1beta2 objects the rules made, and at v1beta1 as written', async () => {
  let count = 0;
  for (const [i, file] of ['cluster.yaml', 'mhc/cluster.yaml', 'remediation/cluster.yaml'].entries()) {
    const namespace = await freshNamespace(client(), `lab-${i}`);
    const objects = parseAllDocuments(readFileSync(join(manifests, file), 'utf8')).map((d) => d.toJS() as JsonMap)
      .filter((o) => o?.['apiVersion'] === spokeVersion && String(o['kind']).startsWith('Metal3'));
    for (const manifest of objects) {
      const kind = String(manifest['kind']);
      // The apiserver gives the written object v1beta1's defaults (nodeReuse, a remediation strategy's).
      const object = defaulted({ ...manifest, metadata: { ...(manifest['metadata'] as JsonMap), namespace } }, 'v1beta1');
      const name = String((object['metadata'] as JsonMap)['name']);
      await client().create(resourcePath('v1beta1', namespace, kind), object);
      const v2 = await client().get(resourcePath('v1beta2', namespace, kind, name)) as unknown as JsonMap;
      const expected = readAt(object, 'v1beta2');
      assert.is(
        canonical({ spec: v2['spec'], status: v2['status'] } as Json),
        canonical({ spec: expected['spec'], status: expected['status'] } as Json),
        `${file} ${kind} ${name}`,
      );
      assert.equal(validate(schemaOf(kind, 'v1beta2', 'ours'), v2 as Json), [], `${file} ${kind} ${name} is a valid v1beta2 object`);
      const v1 = asWritten(await client().get(resourcePath('v1beta1', namespace, kind, name)));
      assert.is(canonical(v1), canonical(object), `${file} ${kind} ${name} read back at v1beta1`);
      written.push({ kind, name, namespace });
      count++;
    }
  }
  assert.ok(count >= 10, `${count} Metal3 objects`);
});

test('latency per object of a get at the other version (through the webhook) and at the storage version (printed)', async () => {
  const timed = async (path: string) => {
    const started = performance.now();
    await client().get(path);
    return performance.now() - started;
  };
  const same: number[] = [];
  const converted: number[] = [];
  const before = webhook.reviews.length;
  for (let round = 0; round < 3; round++) {
    for (const { kind, name, namespace } of written) {
      same.push(await timed(resourcePath('v1beta2', namespace, kind, name)));
      converted.push(await timed(resourcePath('v1beta1', namespace, kind, name)));
    }
  }
  const reviews = webhook.reviews.length - before;
  assert.ok(reviews >= converted.length, `every get at v1beta1 went through the webhook (${reviews} reviews for ${converted.length} gets)`);
  const figures = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    return `p50 ${quantile(sorted, 0.5).toFixed(2)} ms, p99 ${quantile(sorted, 0.99).toFixed(2)} ms`;
  };
  console.log([
    `get of one object, ${same.length} per version (${written.length} objects of all nine kinds, 3 rounds, admin client, kept-alive connection):`,
    `  at v1beta2, the storage version (no conversion): ${figures(same)}`,
    `  at v1beta1, converted by the webhook: ${figures(converted)}`,
  ].join('\n'));
});

test('what the samples exercised: the lossless annotation through the apiserver both ways, values v1beta2 forbids written back there', () => {
  const total = [...kinds.keys()].length * SAMPLES;
  console.log([
    `${total} samples per start version; the conversion needed the lossless annotation for ${annotated.v1beta1} written at v1beta1, ${annotated.v1beta2} at v1beta2`,
    `v1beta1 samples holding values v1beta2 forbids, written back at v1beta2 unchanged (${invalidWrittenBack.length}):${
      invalidWrittenBack.map((r) => `\n  ${r.slice(0, 300)}`).join('')
    }`,
  ].join('\n'));
  assert.ok(annotated.v1beta1 > 0 && annotated.v1beta2 > 0, 'the lossless annotation went through the apiserver both ways');
});

test.run();
