// Property tests over random templates (seeded, reproducible): whatever the
// template, rendering yields YAML that parses back to the rendered value with
// keys in DR-22 order and validated MACs, or a RenderError naming a template
// field — never anything else.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isMap, isSeq, type Node, parse, parseDocument } from 'yaml';
import type { Metal3DataTemplateSpec } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { isMacAddress, keyLess, metaDataMap, networkDataDocument, RenderError, renderMetaData, renderNetworkData } from './index.ts';
import { type ContextOptions, renderContext } from './testing.ts';

const test = suite('render: properties over random templates');

const RUNS = 400;

function rng(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Hostile text, minus the characters yaml.v2 treats as line breaks but YAML
// 1.2 parsers do not (NEL, LS, PS): their folding is pinned in yaml.test.ts.
const ATOMS = [
  'a',
  'Z',
  'node',
  '0',
  '7',
  '10',
  '-',
  '+',
  '.',
  ':',
  ': ',
  ' ',
  '#',
  ' #',
  '?',
  '!',
  '*',
  '&',
  '[',
  '{',
  ',',
  "'",
  '"',
  '\\',
  '|',
  '>',
  '%',
  '@',
  '`',
  '~',
  '_',
  '\n',
  '\t',
  '\r',
  '\u00e9',
  '\u{1F600}',
  '\u00a0',
  'yes',
  'No',
  'null',
  'true',
  '0x1F',
  '1e3',
  '2001-01-01',
  '12:30',
  '::',
  'fe80::1',
  '00:11:22:33:44:55',
  'x'.repeat(40),
  ' word',
  '---',
  '\u0000',
  '\ufeff',
];

class Gen {
  readonly next: () => number;
  constructor(seed: number) {
    this.next = rng(seed);
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }
  text(max = 6): string {
    return Array.from({ length: this.int(max + 1) }, () => this.pick(ATOMS)).join('');
  }
  list<T>(max: number, make: (i: number) => T): T[] {
    return Array.from({ length: this.int(max + 1) }, (_, i) => make(i));
  }
  mac(): string {
    if (this.chance(0.1)) return this.pick(['', 'XX:XX:XX:XX:XX:XX', '12:34:56:78:9A', '12:34:56:78:9a:bc:de', this.text(3)]);
    const sep = () => this.pick([':', '-']);
    return Array.from({ length: 6 }, () => this.int(256).toString(16).padStart(2, '0')).map((h) => (this.chance(0.5) ? h.toUpperCase() : h)).reduce((a, h) =>
      `${a}${sep()}${h}`
    );
  }
}

const POOLS = ['p1', 'p2', 'p3', 'gone'];
const OBJECTS = ['machine', 'metal3machine', 'baremetalhost'] as const;

function randomCase(seed: number): { spec: Metal3DataTemplateSpec; options: ContextOptions } {
  const g = new Gen(seed);
  const key = () => (g.chance(0.3) ? g.pick(['k', 'K', 'k10', 'k2', 'providerid']) : g.text(3));
  const poolName = () => (g.chance(0.05) ? 'gone' : g.pick(POOLS.slice(0, 3)));
  const fromPool = () => ({ key: key(), name: poolName(), apiGroup: '', kind: '' });
  const object = () => (g.chance(0.03) ? ('host' as 'machine') : g.pick(OBJECTS));
  const macSource =
    () => (g.chance(0.7)
      ? { string: g.mac() }
      : g.chance(0.5)
      ? { fromHostInterface: g.pick(['eth0', 'eth1', 'eth9']) }
      : { fromAnnotation: { object: object(), annotation: 'mac' } });
  const gateway = () => g.pick([{ string: g.text(2) }, { fromIPPool: poolName() }, { fromPoolRef: { name: poolName(), kind: '' } }, {}]);
  const route = () => ({
    network: g.text(2),
    prefix: g.int(33),
    gateway: gateway(),
    ...(g.chance(0.5) ? { services: { dns: g.list(2, () => g.text(2)), ...(g.chance(0.3) ? { dnsFromIPPool: poolName() } : {}) } } : {}),
  });
  const spec: Metal3DataTemplateSpec = { clusterName: 'c' };
  if (g.chance(0.8)) {
    spec.metaData = {
      strings: g.list(3, () => ({ key: key(), value: g.text() })),
      objectNames: g.list(2, () => ({ key: key(), object: object() })),
      namespaces: g.list(1, () => ({ key: key() })),
      indexes: g.list(2, () => ({ key: key(), offset: g.int(100) - 50, step: g.int(4), prefix: g.text(2), suffix: g.text(2) })),
      ipAddressesFromIPPool: g.list(2, fromPool),
      prefixesFromIPPool: g.list(2, fromPool),
      gatewaysFromIPPool: g.list(2, fromPool),
      dnsServersFromIPPool: g.list(1, fromPool),
      fromHostInterfaces: g.list(1, () => ({ key: key(), interface: g.chance(0.95) ? 'eth0' : 'eth9' })),
      fromLabels: g.list(2, () => ({ key: key(), object: object(), label: g.pick(['l', 'none']) })),
      fromAnnotations: g.list(2, () => ({ key: key(), object: object(), annotation: g.pick(['a', 'none']) })),
    };
  }
  if (g.chance(0.8)) {
    spec.networkData = {
      links: {
        ethernets: g.list(
          2,
          (i) => ({
            type: g.pick(['phy', 'tap', 'ovs'] as const),
            id: `eth${i}`,
            macAddress: macSource(),
            ...(g.chance(0.5) ? { mtu: 1500 + g.int(7500) } : {}),
          }),
        ),
        bonds: g.list(1, () => ({
          id: 'bond0',
          bondMode: g.pick(['802.3ad', 'active-backup'] as const),
          macAddress: macSource(),
          ...(g.chance(0.5) ? { bondLinks: ['eth0', 'eth1'] } : {}),
          ...(g.chance(0.4)
            ? {
              parameters: Object.fromEntries(
                g.list(2, () => [g.pick(['miimon', 'lacp_rate', 'mode', g.text(2)]), g.pick([1, 'fast', true, null, [1, 'a'], { x: g.text(2) }])]),
              ),
            }
            : {}),
        })),
        vlans: g.list(1, (i) => ({ id: `vlan${i}`, vlanID: g.int(4097), vlanLink: 'eth0', macAddress: macSource() })),
      },
      networks: {
        ipv4: g.list(
          2,
          (i) => ({
            id: `n${i}`,
            link: 'eth0',
            ...(g.chance(0.5) ? { ipAddressFromIPPool: poolName() } : { fromPoolRef: { name: poolName(), kind: 'IPPool' } }),
            routes: g.list(2, route),
          }),
        ),
        ipv6: g.list(1, (i) => ({ id: `v6-${i}`, link: 'eth0', ipAddressFromIPPool: poolName(), routes: g.list(1, route) })),
        ipv4DHCP: g.list(1, (i) => ({ id: `d${i}`, link: 'eth1', routes: g.list(2, route) })),
        ipv6DHCP: g.list(1, (i) => ({ id: `d6-${i}`, link: 'eth1' })),
        ipv6SLAAC: g.list(1, (i) => ({ id: `s${i}`, link: 'eth1', routes: g.list(1, route) })),
      },
      services: { dns: g.list(2, () => g.text(2)), ...(g.chance(0.3) ? { dnsFromIPPool: poolName() } : {}) },
    };
  }
  const labels = { l: g.text(), a: g.text(), mac: g.mac() };
  const options: ContextOptions = {
    index: g.int(50),
    nics: g.chance(0.05) ? null : [{ name: 'eth0', mac: g.mac() }, { name: 'eth1', mac: g.mac() }],
    pools: {
      p1: { address: '10.0.0.5', prefix: 24, gateway: '10.0.0.1', dnsServers: ['10.0.0.53'] },
      p2: { address: 'fe80::5', prefix: g.int(129), gateway: g.text(2), dnsServers: g.list(2, () => g.text(2)) },
      p3: { address: g.text(3), prefix: g.int(33) },
    },
    m3m: { labels, annotations: labels },
    machine: { labels, annotations: labels },
    host: { labels, annotations: labels },
  };
  return { spec, options };
}

/** Every mapping's keys, in document order, with the path to report. */
function mappings(node: Node | null, path: string, out: Array<[string, string[]]>): void {
  if (isMap(node)) {
    const keys = node.items.map((pair) => String((pair.key as { value?: unknown } | null)?.value));
    out.push([path, keys]);
    node.items.forEach((pair, i) => mappings(pair.value as Node | null, `${path}.${keys[i]}`, out));
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => mappings(item as Node | null, `${path}[${i}]`, out));
  }
}

type Outcome = { ok: true; text: string; value: unknown } | { ok: false; error: unknown };

function attempt(render: () => string, value: () => unknown): Outcome {
  try {
    return { ok: true, text: render(), value: JSON.parse(JSON.stringify(value())) as unknown };
  } catch (error) {
    return { ok: false, error };
  }
}

function check(outcome: Outcome, part: 'metaData' | 'networkData', seed: number): number {
  const at = `seed ${seed} ${part}`;
  if (!outcome.ok) {
    assert.instance(outcome.error, RenderError, `${at}: ${String(outcome.error)}`);
    assert.ok((outcome.error as RenderError).field.startsWith(`spec.${part}`), `${at}: field ${(outcome.error as RenderError).field}`);
    return 0;
  }
  assert.ok(outcome.text.endsWith('\n'), `${at}: trailing newline`);
  assert.equal(parse(outcome.text), outcome.value, `${at}: parses back`);
  const maps: Array<[string, string[]]> = [];
  mappings(parseDocument(outcome.text).contents, '', maps);
  let pairs = 0;
  for (const [path, keys] of maps) {
    for (let i = 1; i < keys.length; i++, pairs++) {
      assert.not.ok(keyLess(keys[i] as string, keys[i - 1] as string), `${at}: ${path} key ${JSON.stringify(keys[i])} after ${JSON.stringify(keys[i - 1])}`);
    }
  }
  return pairs;
}

test('properties hold for every random template: parse back, DR-22 order, RenderError with a field otherwise', () => {
  const tally = { metaOk: 0, metaErr: 0, netOk: 0, netErr: 0 };
  let orderedPairs = 0;
  for (let seed = 1; seed <= RUNS; seed++) {
    const { spec, options } = randomCase(seed);
    const ctx = renderContext(options);
    if (spec.metaData) {
      const outcome = attempt(() => renderMetaData(spec, ctx), () => metaDataMap(spec, ctx));
      orderedPairs += check(outcome, 'metaData', seed);
      tally[outcome.ok ? 'metaOk' : 'metaErr']++;
      if (outcome.ok) {
        assert.is(renderMetaData(spec, ctx), outcome.text, `seed ${seed}: deterministic`);
        const map = outcome.value as Record<string, string>;
        assert.type(map.providerid, 'string');
        assert.ok(Object.values(map).every((v) => typeof v === 'string'), `seed ${seed}: flat string map`);
      }
    }
    if (spec.networkData) {
      const outcome = attempt(() => renderNetworkData(spec, ctx), () => networkDataDocument(spec, ctx));
      orderedPairs += check(outcome, 'networkData', seed);
      tally[outcome.ok ? 'netOk' : 'netErr']++;
      if (outcome.ok) {
        const doc = outcome.value as { links: Array<Record<string, unknown>>; networks: unknown[]; services: unknown[] };
        assert.equal(Object.keys(doc).sort(), ['links', 'networks', 'services']);
        for (const link of doc.links) {
          const mac = link.type === 'vlan' ? link.vlan_mac_address : link.ethernet_mac_address;
          assert.ok(typeof mac === 'string' && isMacAddress(mac), `seed ${seed}: MAC ${String(mac)} validated`);
        }
      }
    }
  }
  // The generator must exercise both outcomes, or the properties say little.
  for (const [k, n] of Object.entries(tally)) assert.ok(n >= 20, `${k}: ${n} of ${RUNS}`);
  assert.ok(orderedPairs > 2000, `${orderedPairs} adjacent key pairs checked`);
});

test('DR-14: a link with an invalid literal MAC never renders', () => {
  let rejected = 0;
  for (let seed = 1; seed <= RUNS; seed++) {
    const { spec, options } = randomCase(seed);
    const links = spec.networkData?.links;
    const literals = [...(links?.bonds ?? []), ...(links?.ethernets ?? []), ...(links?.vlans ?? [])]
      .map((l) => l.macAddress.string)
      .filter((m): m is string => m !== undefined);
    if (!literals.some((m) => !isMacAddress(m))) continue;
    let error: unknown;
    try {
      renderNetworkData(spec, renderContext(options));
    } catch (err) {
      error = err;
    }
    assert.instance(error, RenderError, `seed ${seed}`);
    rejected++;
  }
  assert.ok(rejected >= 10, `${rejected} templates with a bad literal MAC`);
});

test.run();
