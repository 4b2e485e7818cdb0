// How yaml.v2 (the encoder behind sigs.k8s.io/yaml) decides the style of a
// string scalar (DR-23). Upstream renders Go value → JSON → YAML v2, so every
// string in the output went through these two questions: would it read back
// as something other than a string if written plain (then it is
// double-quoted), and can the emitter write it plain at all (else it is
// single-quoted, or double-quoted when even that is impossible).

/** YAML 1.1 words yaml.v2 resolves to booleans, null or floats (`<<` is never looked up: `<` is not a hinted first character). */
const RESERVED_WORDS = new Set([
  'y',
  'Y',
  'yes',
  'Yes',
  'YES',
  'true',
  'True',
  'TRUE',
  'on',
  'On',
  'ON',
  'n',
  'N',
  'no',
  'No',
  'NO',
  'false',
  'False',
  'FALSE',
  'off',
  'Off',
  'OFF',
  '',
  '~',
  'null',
  'Null',
  'NULL',
  '.nan',
  '.NaN',
  '.NAN',
  '.inf',
  '.Inf',
  '.INF',
  '+.inf',
  '+.Inf',
  '+.INF',
  '-.inf',
  '-.Inf',
  '-.INF',
]);

// First characters for which yaml.v2 tries to resolve a plain scalar at all.
const HINTED_FIRST = /^[-+0-9yYnNtTfFoO~.]/;

const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;
const GO_INT_BASE0 = /^([-+]?)(0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO][0-7]+|0[0-7]*|[1-9][0-9]*)$/;

const INT64_MAX = (1n << 63n) - 1n;
const UINT64_MAX = (1n << 64n) - 1n;

/**
 * True when yaml.v2 would resolve the plain scalar `s` to a non-string
 * (null, bool, int, float, timestamp): the encoder then double-quotes it.
 */
export function resolvesToNonString(s: string): boolean {
  if (s === '') return true;
  if (!HINTED_FIRST.test(s)) return false;
  if (RESERVED_WORDS.has(s)) return true;
  const first = s[0];
  // strconv.ParseFloat: single underscores may sit between digits.
  if (first === '.') return /^\.[0-9](?:_?[0-9])*(?:[eE][-+]?[0-9](?:_?[0-9])*)?$/.test(s) && Number.isFinite(Number(s.replaceAll('_', '')));
  if (first !== '+' && first !== '-' && !(first !== undefined && first >= '0' && first <= '9')) return false;
  if (isTimestamp(s)) return true;
  const plain = s.replaceAll('_', '');
  const int = GO_INT_BASE0.exec(plain);
  if (int) {
    // strconv.ParseInt, then ParseUint (which takes no sign); overflow leaves a string.
    const sign = int[1] ?? '';
    const magnitude = parseGoUnsigned(int[2] ?? '');
    if (magnitude <= INT64_MAX || (sign === '-' && magnitude === INT64_MAX + 1n)) return true;
    if (sign === '' && magnitude <= UINT64_MAX) return true;
  }
  return YAML_STYLE_FLOAT.test(plain) && Number.isFinite(Number(plain));
}

function parseGoUnsigned(digits: string): bigint {
  if (/^0[xX]/.test(digits)) return BigInt(`0x${digits.slice(2)}`);
  if (/^0[bB]/.test(digits)) return BigInt(`0b${digits.slice(2)}`);
  if (/^0[oO]/.test(digits)) return BigInt(`0o${digits.slice(2)}`);
  if (digits.length > 1 && digits.startsWith('0')) return BigInt(`0o${digits.slice(1)}`);
  return BigInt(digits);
}

const DATE = /^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})/;
const TIME = /^([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:[.,][0-9]+)?/;
const ZONE = /^(?:Z|[-+][0-9]{2}:[0-9]{2})$/;

/** The timestamp layouts yaml.v2 tries with Go's time.Parse. */
function isTimestamp(s: string): boolean {
  const date = DATE.exec(s);
  if (!date) return false;
  const [, y, m, d] = date.map(Number) as [number, number, number, number];
  if (m < 1 || m > 12 || d < 1 || d > daysIn(y, m)) return false;
  let rest = s.slice(date[0].length);
  if (rest === '') return true;
  const sep = rest[0];
  if (sep !== 'T' && sep !== 't' && sep !== ' ') return false;
  rest = rest.slice(1);
  const time = TIME.exec(rest);
  if (!time) return false;
  const [, h, min, sec] = time.map(Number) as [number, number, number, number];
  if (h > 23 || min > 59 || sec > 59) return false;
  rest = rest.slice(time[0].length);
  return sep === ' ' ? rest === '' : ZONE.test(rest);
}

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** yaml.v2 double-quotes strings that look like YAML 1.1 base-60 numbers (e.g. `00:11:22:33:44:55`). */
export function isBase60Float(s: string): boolean {
  return /^[-+0-9]/.test(s) && s.includes(':') && BASE60_FLOAT.test(s);
}

/** What the emitter's scalar analysis allows for a string (yaml_emitter_analyze_scalar). */
export interface ScalarAnalysis {
  multiline: boolean;
  blockPlainAllowed: boolean;
  singleQuotedAllowed: boolean;
  blockAllowed: boolean;
}

export function isBreak(c: string | undefined): boolean {
  return c === '\r' || c === '\n' || c === '\u0085' || c === '\u2028' || c === '\u2029';
}

export function isBlank(c: string | undefined): boolean {
  return c === ' ' || c === '\t';
}

/** libyaml's printable set (with unicode output enabled), per code point. */
export function isPrintable(c: string): boolean {
  const cp = c.codePointAt(0) ?? 0;
  return (
    cp === 0x0a ||
    (cp >= 0x20 && cp <= 0x7e) ||
    (cp >= 0xa0 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd && cp !== 0xfeff)
  );
}

export function analyzeScalar(value: string): ScalarAnalysis {
  if (value === '') {
    return { multiline: false, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: false };
  }
  const chars = Array.from(value);
  let blockIndicators = value.startsWith('---') || value.startsWith('...');
  let lineBreaks = false;
  let special = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let precededByWhitespace = true;
  let previousSpace = false;
  let previousBreak = false;

  chars.forEach((c, i) => {
    const next = chars[i + 1];
    const followedByWhitespace = next === undefined || isBlank(next);
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(c)) blockIndicators = true;
      else if ((c === '?' || c === ':' || c === '-') && followedByWhitespace) blockIndicators = true;
    } else if (c === ':' && followedByWhitespace) {
      blockIndicators = true;
    } else if (c === '#' && precededByWhitespace) {
      blockIndicators = true;
    }
    if (!isPrintable(c)) special = true;
    const last = i === chars.length - 1;
    if (c === ' ') {
      if (i === 0) leadingSpace = true;
      if (last) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreak(c)) {
      lineBreaks = true;
      if (i === 0) leadingBreak = true;
      if (last) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = isBlank(c) || isBreak(c);
  });

  let blockPlainAllowed = true;
  let singleQuotedAllowed = true;
  let blockAllowed = true;
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) blockPlainAllowed = false;
  if (trailingSpace) blockAllowed = false;
  if (breakSpace) {
    blockPlainAllowed = false;
    singleQuotedAllowed = false;
  }
  if (spaceBreak || special) {
    blockPlainAllowed = false;
    singleQuotedAllowed = false;
    blockAllowed = false;
  }
  if (lineBreaks || blockIndicators) blockPlainAllowed = false;
  return { multiline: lineBreaks, blockPlainAllowed, singleQuotedAllowed, blockAllowed };
}

export type ScalarStyle = 'plain' | 'single' | 'double' | 'literal';

/**
 * The style yaml.v2 writes a string in, in block context (we never emit
 * non-empty flow collections). `simpleKey` is true for mapping keys.
 */
export function stringStyle(value: string, simpleKey: boolean): ScalarStyle {
  const canUsePlain = !resolvesToNonString(value) && !isBase60Float(value);
  let style: ScalarStyle = value.includes('\n') ? 'literal' : canUsePlain ? 'plain' : 'double';
  const analysis = analyzeScalar(value);
  if (simpleKey && analysis.multiline) style = 'double';
  if (style === 'plain') {
    if (!analysis.blockPlainAllowed || (value === '' && simpleKey)) style = 'single';
  }
  if (style === 'single' && !analysis.singleQuotedAllowed) style = 'double';
  if (style === 'literal' && (!analysis.blockAllowed || simpleKey)) style = 'double';
  return style;
}
