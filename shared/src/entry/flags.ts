// Command-line flags in the style Kubernetes components use (`--name value`, `--name=value`, booleans
// bare or `--name=false`, Go durations such as `15s` or `1m30s`). Each flag is declared once with its
// type, default and help; parsing returns a typed record and every error names the flag at fault.

import { compareCodeUnits } from '../meta/compare.ts';

export class FlagError extends Error {
  override name = 'FlagError';
  /** The flag at fault, with its dashes (`--kube-api-qps`); undefined for a stray argument. */
  readonly flag: string | undefined;
  constructor(flag: string | undefined, message: string) {
    super(flag ? `${flag}: ${message}` : message);
    this.flag = flag;
  }
}

/** Thrown by parseFlags for `--help` / `-h`: print usage and exit 0. */
export class HelpRequested extends Error {
  override name = 'HelpRequested';
}

export interface FlagSpec<T> {
  readonly help: string;
  readonly default: T;
  /** How the default is shown in usage (e.g. `15s` for a duration). */
  readonly shownDefault?: string;
  /** Converts the flag's text; throws an Error whose message says what was expected. */
  parse(text: string): T;
  /** Boolean flags take no separate value (`--leader-elect`, `--leader-elect=false`). */
  readonly boolean?: boolean;
}

export type FlagSpecs = Readonly<Record<string, FlagSpec<unknown>>>;
export type FlagValues<S extends FlagSpecs> = { -readonly [K in keyof S]: S[K] extends FlagSpec<infer T> ? T : never };

export const flag = {
  string(defaultValue: string, help: string): FlagSpec<string> {
    return { help, default: defaultValue, parse: (text) => text };
  },
  optionalString(help: string): FlagSpec<string | undefined> {
    return { help, default: undefined, parse: (text) => (text === '' ? undefined : text) };
  },
  int(defaultValue: number, help: string, range: { min?: number; max?: number } = {}): FlagSpec<number> {
    return { help, default: defaultValue, parse: (text) => inRange(parseNumber(text, true), range) };
  },
  float(defaultValue: number, help: string, range: { min?: number; max?: number } = {}): FlagSpec<number> {
    return { help, default: defaultValue, parse: (text) => inRange(parseNumber(text, false), range) };
  },
  bool(defaultValue: boolean, help: string): FlagSpec<boolean> {
    return { help, default: defaultValue, boolean: true, parse: parseBool };
  },
  /** A Go duration; the value is in milliseconds. */
  duration(defaultMs: number, help: string, range: { min?: number } = {}): FlagSpec<number> {
    return { help, default: defaultMs, shownDefault: formatDuration(defaultMs), parse: (text) => inRange(parseDuration(text), range, formatDuration) };
  },
  /** One of a fixed set of words. */
  oneOf<const T extends string>(values: readonly T[], defaultValue: T, help: string): FlagSpec<T> {
    return {
      help: `${help} (one of ${values.join(', ')})`,
      default: defaultValue,
      parse: (text) => {
        if ((values as readonly string[]).includes(text)) return text as T;
        throw new Error(`expected one of ${values.join(', ')}, got "${text}"`);
      },
    };
  },
};

/**
 * Parses `argv` against `specs` (keys are flag names without dashes). Unknown flags, missing values,
 * bad values and positional arguments are FlagErrors; `--help` throws HelpRequested.
 */
export function parseFlags<S extends FlagSpecs>(specs: S, argv: readonly string[]): FlagValues<S> {
  const values: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(specs)) values[name] = spec.default;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--help' || arg === '-h') throw new HelpRequested();
    if (arg === '--') {
      if (i + 1 < argv.length) throw new FlagError(undefined, `unexpected argument "${argv[i + 1]}" (this program takes flags only)`);
      break;
    }
    const match = /^--?([a-zA-Z0-9][a-zA-Z0-9._-]*)(?:=(.*))?$/s.exec(arg);
    if (!match) throw new FlagError(undefined, `unexpected argument "${arg}" (this program takes flags only)`);
    const name = match[1] as string;
    const spec = Object.hasOwn(specs, name) ? specs[name] : undefined;
    const shown = `--${name}`;
    if (!spec) throw new FlagError(shown, `unknown flag${suggestion(name, Object.keys(specs))}`);
    let text = match[2];
    if (text === undefined) {
      if (spec.boolean) text = 'true';
      else {
        const next = argv[++i];
        if (next === undefined) throw new FlagError(shown, 'needs a value');
        text = next;
      }
    }
    try {
      values[name] = spec.parse(text);
    } catch (error) {
      throw new FlagError(shown, error instanceof Error ? error.message : String(error));
    }
  }
  return values as FlagValues<S>;
}

/** `--name type   help (default x)` lines for every flag, sorted by name. */
export function usage(specs: FlagSpecs): string {
  return Object.entries(specs)
    .sort(([a], [b]) => compareCodeUnits(a, b))
    .map(([name, spec]) => {
      const shown = spec.shownDefault ?? (spec.default === undefined || spec.default === '' ? undefined : String(spec.default));
      const head = `  --${name}${spec.boolean ? '' : ' value'}`;
      return `${head.padEnd(40)} ${spec.help}${shown !== undefined ? ` (default ${shown})` : ''}`;
    })
    .join('\n');
}

function parseNumber(text: string, integer: boolean): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
    throw new Error(`expected ${integer ? 'an integer' : 'a number'}, got "${text}"`);
  }
  return value;
}

function inRange(value: number, range: { min?: number; max?: number }, show: (v: number) => string = String): number {
  if (range.min !== undefined && value < range.min) throw new Error(`must be at least ${show(range.min)}, got ${show(value)}`);
  if (range.max !== undefined && value > range.max) throw new Error(`must be at most ${show(range.max)}, got ${show(value)}`);
  return value;
}

function parseBool(text: string): boolean {
  if (['true', '1', 't', 'T', 'TRUE', 'True'].includes(text)) return true;
  if (['false', '0', 'f', 'F', 'FALSE', 'False'].includes(text)) return false;
  throw new Error(`expected true or false, got "${text}"`);
}

const UNIT_MS: Readonly<Record<string, number>> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Go's time.ParseDuration (without a sign), in milliseconds: `300ms`, `1.5s`, `1m30s`, `0`. */
export function parseDuration(text: string): number {
  if (text === '0') return 0;
  const part = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let consumed = 0;
  for (let m = part.exec(text); m; m = part.exec(text)) {
    total += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
    consumed = part.lastIndex;
  }
  if (consumed === 0 || consumed !== text.length) throw new Error(`expected a duration such as 300ms, 15s or 1m30s, got "${text}"`);
  return total;
}

/** The shortest Go-style spelling of a whole number of milliseconds: `15s`, `1m30s`, `300ms`. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  let rest = Math.round(ms);
  let out = '';
  for (const [unit, size] of [['h', 3_600_000], ['m', 60_000], ['s', 1000]] as const) {
    if (rest >= size) {
      out += `${Math.floor(rest / size)}${unit}`;
      rest %= size;
    }
  }
  return rest > 0 ? `${out}${rest}ms` : out;
}

function suggestion(name: string, known: readonly string[]): string {
  const close = known.find((k) => k.replace(/[-_.]/g, '').toLowerCase() === name.replace(/[-_.]/g, '').toLowerCase());
  return close ? ` (did you mean --${close}?)` : ' (see --help)';
}
