// A small YAML writer reproducing the bytes sigs.k8s.io/yaml produces for a
// JSON-shaped value (DR-22, DR-23). Upstream marshals Go values to JSON and
// re-encodes that with yaml.v2, so what matters is yaml.v2's behaviour on
// plain JSON data: sorted ("natural" order) mapping keys, block style for
// non-empty collections, `[]`/`{}` for empty ones, two-space indentation,
// sequences under a mapping key not indented, the scalar styles of
// yaml-scalar.ts, and folding of long scalars at spaces past column 80.
// The structure follows libyaml's emitter (column/indent bookkeeping) because
// that is where the exact bytes come from.

import { analyzeScalar, isBreak, isPrintable, stringStyle } from './yaml-scalar.ts';

/** A value as it looks after Go's JSON round trip. `undefined` members are omitted. */
export type YamlValue =
  | string
  | number
  | boolean
  | null
  | readonly YamlValue[]
  | { readonly [key: string]: YamlValue | undefined };

const BEST_INDENT = 2;
const BEST_WIDTH = 80;
/** libyaml writes a mapping key as `? key` when it is longer than this (in UTF-8 bytes). */
const MAX_SIMPLE_KEY_BYTES = 128;

/** Serialises `value` exactly as sigs.k8s.io/yaml.Marshal would (output ends with a newline). */
export function toYaml(value: YamlValue): string {
  const emitter = new Emitter();
  emitter.node(value, false, false);
  emitter.writeIndent();
  return emitter.out;
}

/**
 * yaml.v2's map key order (sorter.go): letters compare by code point, a
 * letter sorts after a non-letter, digit runs compare by numeric value then
 * by length, and a prefix sorts first.
 */
export function keyLess(a: string, b: string): boolean {
  const ar = Array.from(a);
  const br = Array.from(b);
  for (let i = 0; i < ar.length && i < br.length; i++) {
    const ac = ar[i] as string;
    const bc = br[i] as string;
    if (ac === bc) continue;
    const al = isLetter(ac);
    const bl = isLetter(bc);
    if (al && bl) return codePoint(ac) < codePoint(bc);
    if (al || bl) return bl;
    let an = 0n;
    let bn = 0n;
    if (ac === '0' || bc === '0') {
      for (let j = i - 1; j >= 0 && isDigit(ar[j] as string); j--) {
        if (ar[j] !== '0') {
          an = 1n;
          bn = 1n;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && isDigit(ar[ai] as string); ai++) an = wrapInt64(an * 10n + BigInt(codePoint(ar[ai] as string) - 48));
    let bi = i;
    for (; bi < br.length && isDigit(br[bi] as string); bi++) bn = wrapInt64(bn * 10n + BigInt(codePoint(br[bi] as string) - 48));
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return codePoint(ac) < codePoint(bc);
  }
  return ar.length < br.length;
}

/**
 * Keys of a mapping in the order yaml.v2 writes them. keyLess is not
 * transitive for some digit/letter mixes (`1e3` < `9x` < `12` < `1e3`); Go
 * then sorts keys taken in random map order, so upstream's output is itself
 * unstable. Insertion sort keeps ours deterministic and guarantees that no
 * key is followed by one that sorts before it.
 */
export function sortedKeys(keys: readonly string[]): string[] {
  const out = [...keys];
  for (let i = 1; i < out.length; i++) {
    for (let j = i; j > 0 && keyLess(out[j] as string, out[j - 1] as string); j--) {
      [out[j - 1], out[j]] = [out[j] as string, out[j - 1] as string];
    }
  }
  return out;
}

function isLetter(c: string): boolean {
  return /^\p{L}$/u.test(c);
}

function isDigit(c: string): boolean {
  return /^\p{Nd}$/u.test(c);
}

function codePoint(c: string): number {
  return c.codePointAt(0) ?? 0;
}

// Digit runs accumulate in a Go int64, overflow included.
function wrapInt64(n: bigint): bigint {
  return BigInt.asIntN(64, n);
}

/**
 * A string as yaml.v2 reads it back from Go's JSON: invalid UTF-16 (invalid
 * UTF-8 for Go) becomes U+FFFD, and because NEL (U+0085) is the one line
 * break Go's JSON encoder leaves unescaped, the YAML double-quoted scalar
 * folds it: a run of spaces and n NELs becomes one space (n = 1) or n − 1
 * newlines.
 */
function goJsonRoundTrip(s: string): string {
  return s
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')
    .replace(/[ \u0085]*\u0085[ \u0085]*/g, (run) => {
      const breaks = run.split('\u0085').length - 1;
      return breaks === 1 ? ' ' : '\n'.repeat(breaks - 1);
    });
}

/** strconv.FormatInt for integers, strconv.FormatFloat(f, 'g', -1, 64) otherwise. */
export function formatNumber(n: number): string {
  if (Number.isNaN(n)) return '.nan';
  if (n === Infinity) return '.inf';
  if (n === -Infinity) return '-.inf';
  if (Number.isInteger(n) && Math.abs(n) < 2 ** 63) return BigInt(n).toString();
  const [mantissa = '', exponentText = '0'] = n.toExponential().split('e');
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 6) {
    const sign = exponent < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  return String(n);
}

class Emitter {
  out = '';
  private column = 0;
  private indent = -1;
  private readonly indents: number[] = [];
  private whitespace = true;
  private indention = true;

  node(value: YamlValue, mappingContext: boolean, simpleKey: boolean): void {
    if (Array.isArray(value)) {
      this.sequence(value as readonly YamlValue[], mappingContext);
    } else if (value !== null && typeof value === 'object') {
      this.mapping(value as { readonly [key: string]: YamlValue | undefined });
    } else {
      this.scalar(value as string | number | boolean | null, simpleKey);
    }
  }

  private sequence(items: readonly YamlValue[], mappingContext: boolean): void {
    if (items.length === 0) {
      this.emptyFlow('[', ']');
      return;
    }
    this.increaseIndent(false, mappingContext && !this.indention);
    for (const item of items) {
      this.writeIndent();
      this.writeIndicator('-', true, false, true);
      this.node(item, false, false);
    }
    this.popIndent();
  }

  private mapping(map: { readonly [key: string]: YamlValue | undefined }): void {
    const present = Object.keys(map).filter((k) => map[k] !== undefined);
    const decoded = new Map(present.map((k) => [goJsonRoundTrip(k), k]));
    const keys = sortedKeys([...decoded.keys()]);
    if (keys.length === 0) {
      this.emptyFlow('{', '}');
      return;
    }
    this.increaseIndent(false, false);
    for (const key of keys) {
      const value = map[decoded.get(key) as string] as YamlValue;
      this.writeIndent();
      if (isSimpleKey(key)) {
        this.scalar(key, true);
        this.writeIndicator(':', false, false, false);
      } else {
        this.writeIndicator('?', true, false, true);
        this.scalar(key, false);
        this.writeIndent();
        this.writeIndicator(':', true, false, true);
      }
      this.node(value, true, false);
    }
    this.popIndent();
  }

  private emptyFlow(open: string, close: string): void {
    this.writeIndicator(open, true, true, false);
    this.increaseIndent(true, false);
    this.popIndent();
    this.writeIndicator(close, false, false, false);
  }

  private scalar(value: string | number | boolean | null, simpleKey: boolean): void {
    let text: string;
    let style: ReturnType<typeof stringStyle>;
    if (typeof value === 'string') {
      text = goJsonRoundTrip(value);
      style = stringStyle(text, simpleKey);
    } else {
      text = value === null ? 'null' : typeof value === 'boolean' ? String(value) : formatNumber(value);
      style = 'plain';
    }
    this.increaseIndent(true, false);
    const allowBreaks = !simpleKey;
    const chars = Array.from(text);
    if (style === 'plain') this.writePlain(chars, allowBreaks);
    else if (style === 'single') this.writeSingleQuoted(chars, allowBreaks);
    else if (style === 'double') this.writeDoubleQuoted(chars, allowBreaks);
    else this.writeLiteral(chars);
    this.popIndent();
  }

  private writePlain(chars: string[], allowBreaks: boolean): void {
    if (!this.whitespace) this.put(' ');
    this.writeFolding(chars, allowBreaks, false);
    this.whitespace = false;
    this.indention = false;
  }

  private writeSingleQuoted(chars: string[], allowBreaks: boolean): void {
    this.writeIndicator("'", true, false, false);
    this.writeFolding(chars, allowBreaks, true);
    this.writeIndicator("'", false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  /**
   * The body of a plain or single-quoted scalar (one walk, as both styles fold alike): a lone space
   * past the best width may become a fold (in a quoted one never the first or last character), line
   * breaks are kept, and a quoted one doubles its quotes.
   */
  private writeFolding(chars: string[], allowBreaks: boolean, quoted: boolean): void {
    let spaces = false;
    let breaks = false;
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i] as string;
      if (c === ' ') {
        const foldable = !quoted || (i > 0 && i < chars.length - 1);
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && foldable && chars[i + 1] !== ' ') this.writeIndent();
        else this.put(c);
        spaces = true;
      } else if (isBreak(c)) {
        if (!breaks && c === '\n') this.putBreak();
        this.writeBreak(c);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        if (quoted && c === "'") this.put("'");
        this.put(c);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    }
  }

  private writeDoubleQuoted(chars: string[], allowBreaks: boolean): void {
    let spaces = false;
    // libyaml's BOM test looks at the start of the value, not at the current
    // character: a value starting with U+FEFF is escaped throughout.
    const escapeAll = chars[0] === '\uFEFF';
    this.writeIndicator('"', true, false, false);
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i] as string;
      if (escapeAll || !isPrintable(c) || isBreak(c) || c === '"' || c === '\\') {
        for (const e of escape(c)) this.put(e);
        spaces = false;
      } else if (c === ' ') {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < chars.length - 1) {
          this.writeIndent();
          if (chars[i + 1] === ' ') this.put('\\');
        } else {
          this.put(c);
        }
        spaces = true;
      } else {
        this.put(c);
        spaces = false;
      }
    }
    this.writeIndicator('"', false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private writeLiteral(chars: string[]): void {
    this.writeIndicator('|', true, false, false);
    const first = chars[0];
    if (first === ' ' || isBreak(first)) this.writeIndicator(String(BEST_INDENT), false, false, false);
    const n = chars.length;
    let chomp = '';
    if (n === 0 || !isBreak(chars[n - 1])) chomp = '-';
    else if (n === 1 || isBreak(chars[n - 2])) chomp = '+';
    if (chomp !== '') this.writeIndicator(chomp, false, false, false);
    this.putBreak();
    this.indention = true;
    this.whitespace = true;
    let breaks = true;
    for (const c of chars) {
      if (isBreak(c)) {
        this.writeBreak(c);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.put(c);
        this.indention = false;
        breaks = false;
      }
    }
  }

  writeIndent(): void {
    const indent = Math.max(this.indent, 0);
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) this.putBreak();
    while (this.column < indent) this.put(' ');
    this.whitespace = true;
    this.indention = true;
  }

  private writeIndicator(indicator: string, needWhitespace: boolean, isWhitespace: boolean, isIndention: boolean): void {
    if (needWhitespace && !this.whitespace) this.put(' ');
    for (const c of indicator) this.put(c);
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }

  private increaseIndent(flow: boolean, indentless: boolean): void {
    this.indents.push(this.indent);
    if (this.indent < 0) this.indent = flow ? BEST_INDENT : 0;
    else if (!indentless) this.indent += BEST_INDENT;
  }

  private popIndent(): void {
    this.indent = this.indents.pop() ?? -1;
  }

  private put(c: string): void {
    this.out += c;
    this.column++;
  }

  private putBreak(): void {
    this.out += '\n';
    this.column = 0;
  }

  private writeBreak(c: string): void {
    if (c === '\n') {
      this.putBreak();
    } else {
      this.put(c);
      this.column = 0;
    }
  }
}

function isSimpleKey(key: string): boolean {
  return !analyzeScalar(key).multiline && new TextEncoder().encode(key).length <= MAX_SIMPLE_KEY_BYTES;
}

const NAMED_ESCAPES: ReadonlyMap<number, string> = new Map([
  [0x00, '0'],
  [0x07, 'a'],
  [0x08, 'b'],
  [0x09, 't'],
  [0x0a, 'n'],
  [0x0b, 'v'],
  [0x0c, 'f'],
  [0x0d, 'r'],
  [0x1b, 'e'],
  [0x22, '"'],
  [0x5c, '\\'],
  [0x85, 'N'],
  [0xa0, '_'],
  [0x2028, 'L'],
  [0x2029, 'P'],
]);

function escape(c: string): string {
  const cp = c.codePointAt(0) ?? 0;
  const named = NAMED_ESCAPES.get(cp);
  if (named !== undefined) return `\\${named}`;
  const hex = cp.toString(16).toUpperCase();
  if (cp <= 0xff) return `\\x${hex.padStart(2, '0')}`;
  if (cp <= 0xffff) return `\\u${hex.padStart(4, '0')}`;
  return `\\U${hex.padStart(8, '0')}`;
}
