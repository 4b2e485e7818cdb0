// What a regeneration changed in the generated API, for the bump summary: per group/version module, the
// kinds added or removed and, per declared interface, the fields added, removed or changed (type or
// optionality). Read from the emitted text (one `export interface X {` block per type, one member a
// line at two spaces), which codegen writes in a fixed shape. Pure: two file maps in, a report out.

export interface InterfaceChange {
  readonly name: string;
  /** Whether the interface itself is new, gone, or on both sides with different members. */
  readonly status: 'added' | 'removed' | 'changed';
  readonly added: readonly string[];
  readonly removed: readonly string[];
  /** `field: before → after` for a member whose declaration changed. */
  readonly changed: readonly string[];
}

export interface ModuleChange {
  readonly module: string;
  readonly status: 'added' | 'removed' | 'changed';
  readonly kindsAdded: readonly string[];
  readonly kindsRemoved: readonly string[];
  /** Interfaces only on one side are listed with all their fields as added or removed. */
  readonly interfaces: readonly InterfaceChange[];
}

/** A group/version module: `<group>/<version>.ts`, not the runtime, registry or index. */
export function isApiModulePath(path: string): boolean {
  return path.includes('/') && !path.startsWith('runtime/');
}

function kindsOf(text: string): Set<string> {
  return new Set([...text.matchAll(/^export const (\w+)Resource\b/gm)].map((m) => m[1]!));
}

/** Interface name → member name → its declaration with comments stripped (`name?: string`). */
export function interfacesOf(text: string): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  for (const m of text.matchAll(/^export interface (\w+) \{\n([\s\S]*?)^\}/gm)) {
    const members = new Map<string, string>();
    for (const line of m[2]!.split('\n')) {
      const member = /^ {2}(?:"([^"]+)"|([\w$]+))(\??): (.*);$/.exec(line);
      if (member) members.set(member[1] ?? member[2]!, `${member[3]}: ${member[4]}`);
    }
    out.set(m[1]!, members);
  }
  return out;
}

const minus = <T>(a: Iterable<T>, b: { has(v: T): boolean }): T[] => [...a].filter((v) => !b.has(v));

function interfaceChanges(before: string, after: string): InterfaceChange[] {
  const [a, b] = [interfacesOf(before), interfacesOf(after)];
  const out: InterfaceChange[] = [];
  for (const name of [...new Set([...a.keys(), ...b.keys()])].sort()) {
    const [x, y] = [a.get(name) ?? new Map<string, string>(), b.get(name) ?? new Map<string, string>()];
    const changed = [...x].filter(([field, decl]) => y.has(field) && y.get(field) !== decl).map(([field, decl]) => `${field}${decl} → ${field}${y.get(field)}`);
    const added = minus(y.keys(), x).sort();
    const removed = minus(x.keys(), y).sort();
    const status = !a.has(name) ? 'added' : !b.has(name) ? 'removed' : 'changed';
    if (added.length + removed.length + changed.length > 0 || status !== 'changed') out.push({ name, status, added, removed, changed });
  }
  return out;
}

/** Every module whose API differs between the two file maps, sorted by module. */
export function apiChanges(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): ModuleChange[] {
  const paths = [...new Set([...before.keys(), ...after.keys()])].filter(isApiModulePath).sort();
  const out: ModuleChange[] = [];
  for (const path of paths) {
    const [a, b] = [before.get(path), after.get(path)];
    const status = a === undefined ? 'added' : b === undefined ? 'removed' : 'changed';
    const [ka, kb] = [kindsOf(a ?? ''), kindsOf(b ?? '')];
    const interfaces = interfaceChanges(a ?? '', b ?? '');
    const kindsAdded = minus(kb, ka).sort();
    const kindsRemoved = minus(ka, kb).sort();
    if (status === 'changed' && interfaces.length + kindsAdded.length + kindsRemoved.length === 0) continue;
    out.push({ module: path.replace(/\.ts$/, ''), status, kindsAdded, kindsRemoved, interfaces });
  }
  return out;
}

/** The summary printed by `bump`: one block per module; whole new or removed modules on one line. */
export function formatApiChanges(changes: readonly ModuleChange[]): string {
  if (changes.length === 0) return 'generated API: no change';
  const lines = [`generated API: ${changes.length} module(s) changed`];
  for (const c of changes) {
    if (c.status !== 'changed') {
      const kinds = c.status === 'added' ? c.kindsAdded : c.kindsRemoved;
      lines.push(`  ${c.status === 'added' ? '+' : '-'} ${c.module} (${kinds.length} kinds: ${kinds.join(', ')})`);
      continue;
    }
    lines.push(`  ~ ${c.module}`);
    if (c.kindsAdded.length > 0) lines.push(`      kinds added: ${c.kindsAdded.join(', ')}`);
    if (c.kindsRemoved.length > 0) lines.push(`      kinds removed: ${c.kindsRemoved.join(', ')}`);
    for (const i of c.interfaces) {
      const parts = [
        ...i.added.map((f) => `+${f}`),
        ...i.removed.map((f) => `-${f}`),
        ...i.changed.map((f) => `~${f}`),
      ];
      const mark = i.status === 'added' ? '+' : i.status === 'removed' ? '-' : '';
      lines.push(`      ${mark}${i.name}: ${parts.join(', ') || '(no fields)'}`);
    }
  }
  return lines.join('\n');
}
