// Finds the behaviour IDs a text refers to (`M-12`, `DT-11…DT-15`, `§0.6`), so that
// docs/behaviours.md can say where each one is implemented and tested. Pure: text in, IDs out.
//
// The pattern is deliberately wide (any upper-case prefix of up to four characters, a hyphen, a
// number), so that an ID with a prefix nobody has described yet is found and reported rather than
// silently ignored. What it also catches that is not a behaviour ID is excluded by name below.

/** `M-12`, `DT-6`, `B2-7`; not inside a longer word or hyphenated run (`A-Z0-9`, `abc-M-1`). */
const ID = /(?<![\w-])([A-Z][A-Z0-9]{0,3})-(\d{1,3})(?![\w-])/g;

/** `M-1…M-7`, `DT-11...DT-15`, `V-1 – V-6`: both ends share the prefix. */
const RANGE = /(?<![\w-])([A-Z][A-Z0-9]{0,3})-(\d{1,3}) ?(?:…|\.\.\.?|–) ?\1-(\d{1,3})(?![\w-])/g;

/** Sections of the research catalogue: `§0.6`, `§ 5.3`, `§8`. */
const SECTION = /§ ?(\d{1,2}(?:\.\d{1,2})?)(?![\d])/g;

/**
 * Prefixes that look like IDs but name something else: encodings, digests, hashes, standards and
 * licences. Listed by prefix because every number after them is just as foreign.
 */
export const NOT_ID_PREFIXES: ReadonlySet<string> = new Set(['UTF', 'SHA', 'FNV', 'RFC', 'ISO', 'IEC', 'CC0', 'BSD', 'PSF', 'MIT']);

/**
 * Single tokens whose prefix is also a behaviour prefix, or that are test data: `P-256` is the
 * ECDSA curve (P- is the providerID prefix); `U-1`, `U-2` are placeholder host UUIDs in a
 * simulator test.
 */
export const NOT_IDS: ReadonlySet<string> = new Set(['P-256', 'U-1', 'U-2']);

export function isBehaviourId(token: string): boolean {
  const prefix = token.slice(0, token.lastIndexOf('-'));
  return !NOT_ID_PREFIXES.has(prefix) && !NOT_IDS.has(token);
}

export interface Found {
  /** IDs written out in full (`M-12`, `§0.6`, both ends of a range). */
  readonly explicit: ReadonlySet<string>;
  /** The IDs strictly inside a range (`M-2` … `M-6` of `M-1…M-7`), numbers only. */
  readonly inRanges: ReadonlySet<string>;
}

/** Every behaviour ID `text` names, explicitly or as the inside of a range. */
export function idsIn(text: string): Found {
  const explicit = new Set<string>();
  const inRanges = new Set<string>();
  for (const m of text.matchAll(ID)) {
    const token = `${m[1]}-${Number(m[2])}`;
    if (isBehaviourId(token)) explicit.add(token);
  }
  for (const m of text.matchAll(RANGE)) {
    const [from, to] = [Number(m[2]), Number(m[3])];
    if (!isBehaviourId(`${m[1]}-${from}`) || to - from > 60) continue;
    for (let n = from + 1; n < to; n++) inRanges.add(`${m[1]}-${n}`);
  }
  for (const m of text.matchAll(SECTION)) explicit.add(`§${m[1]}`);
  return { explicit, inRanges };
}

/** Order for reports: by prefix, then by number (`§` sections by their dotted numbers). */
export function compareIds(a: string, b: string): number {
  const [pa, na] = splitId(a);
  const [pb, nb] = splitId(b);
  if (pa !== pb) return pa < pb ? -1 : 1;
  for (let i = 0; i < Math.min(na.length, nb.length); i++) if (na[i] !== nb[i]) return (na[i] ?? 0) - (nb[i] ?? 0);
  return na.length - nb.length;
}

function splitId(id: string): [string, number[]] {
  if (id.startsWith('§')) return ['§', id.slice(1).split('.').map(Number)];
  const at = id.lastIndexOf('-');
  return [id.slice(0, at), [Number(id.slice(at + 1))]];
}
