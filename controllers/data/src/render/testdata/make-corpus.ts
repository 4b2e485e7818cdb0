// Regenerates yaml-v2-corpus.json: seeded random JSON documents rendered by
// the Go oracle in ./oracle (sigs.k8s.io/yaml v1.6.0). Run by hand:
//   (cd oracle && GOPROXY=off GOFLAGS=-mod=mod GOSUMDB=off go build -o /tmp/yaml-oracle .)
//   node make-corpus.ts /tmp/yaml-oracle > yaml-v2-corpus.json
// Documents whose key sets make yaml.v2's comparison cyclic are left out
// (upstream's order is then random), as are those the oracle rejects.
import { execFileSync } from 'node:child_process';
import process from 'node:process';
import { keyLess } from '../yaml.ts';

const oracle = process.argv[2] ?? '/tmp/yaml-oracle';
let seed = 20260101;
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
const atoms = [
  'a', 'b', 'Z', '0', '1', '9', '10', '-', '+', '.', ':', ' ', '  ', '#', '?', '!', '*', '&', '[', ']', '{', '}', ',', "'", '"', '\\',
  '|', '>', '%', '@', '`', '~', '_', '\n', '\t', '\r', '\u00e9', '\u{1F600}', '\u0085', '\u2028', '\ufeff', '\u00a0', 'yes', 'no', 'null',
  'true', '0x1F', '1e3', '2001-01-01', '12:30', '::', '::1', 'fe80::1', 'x'.repeat(30), ' word', '---', '...', '\u0000',
];
const text = (): string => Array.from({ length: Math.floor(random() * 7) }, () => pick(atoms)).join('');
const key = (): string => text().replaceAll('\u0085', '');
const numbers = [0, 1, -1, 1500, 0.5, 1e21, 1e-7, 123456789.5, 2 ** 53, -0.25, 100000.5, 1e6 + 0.5];
function value(depth: number): unknown {
  const r = random();
  if (depth > 2 || r < 0.5) return text();
  if (r < 0.6) return pick(numbers);
  if (r < 0.65) return pick([true, false, null]);
  if (r < 0.8) return Array.from({ length: Math.floor(random() * 3) }, () => value(depth + 1));
  return Object.fromEntries(Array.from({ length: Math.floor(random() * 4) }, () => [key(), value(depth + 1)]));
}
function cyclic(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(cyclic);
  if (v === null || typeof v !== 'object') return false;
  const keys = Object.keys(v);
  for (const a of keys) for (const b of keys) for (const c of keys) {
    if (keyLess(a, b) && keyLess(b, c) && !keyLess(a, c)) return true;
  }
  return Object.values(v).some(cyclic);
}
// Go's encoder escapes U+2028/U+2029; JSON.stringify does not.
const goJson = (v: unknown): string => JSON.stringify(v).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

// Strings at the edge of yaml.v2's resolver: numbers in every base, with
// signs and underscores, out of range, dates and times, base-60 look-alikes.
function scalarish(): string {
  const digits = (alphabet: string, max: number) => Array.from({ length: Math.floor(random() * max) }, () => pick([...alphabet])).join('');
  const n = () => String(Math.floor(random() * 40));
  const year = () => String(1990 + Math.floor(random() * 40));
  return pick([
    () => `${year()}-${n()}-${n()}`,
    () => `${year()}-${n()}-${n()}${pick(['T', 't', ' ', 'x'])}${n()}:${n()}:${n()}${pick(['', '.5', ',25', '.'])}${pick(['', 'Z', '+01:00', '-0100'])}`,
    () => `${pick(['', '+', '-'])}0${pick(['x', 'X', 'o', 'O', 'b', 'B', ''])}${digits('0123456789abcdefABCDEF_', 20)}`,
    () => `${pick(['', '+', '-'])}${digits('0123456789_', 22)}`,
    () => `${pick(['', '+', '-', '.'])}${digits('0123456789._eE+-', 8)}`,
    () => `${n()}:${n()}${pick(['', `:${n()}`, `:${n()}.5`])}`,
  ])();
}

const docs: unknown[] = Array.from({ length: 300 }, () => ({ k: scalarish() }));
while (docs.length < 700) {
  const doc = Object.fromEntries(Array.from({ length: 1 + Math.floor(random() * 4) }, () => [key(), value(0)]));
  if (!cyclic(doc)) docs.push(doc);
}
const lines = execFileSync(oracle, { input: `${docs.map(goJson).join('\n')}\n`, maxBuffer: 1 << 26 }).toString().trim().split('\n');
const corpus = docs.flatMap((doc, i) => {
  const out = JSON.parse(lines[i] ?? 'null') as unknown;
  return typeof out === 'string' ? [[doc, out]] : [];
});
process.stdout.write(`${JSON.stringify(corpus, null, 0).replaceAll('],[', '],\n[')}\n`);
