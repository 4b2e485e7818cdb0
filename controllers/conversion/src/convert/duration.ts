// Go `time.Duration` text, as v1beta1's `strategy.timeout` holds it, to whole seconds and back
// (CV-20). Parsing accepts what Go's time.ParseDuration accepts (`1h2m3.5s`, `600s`, `-1m`, `0`);
// formatting writes what Go's Duration.String writes for whole seconds (`10m0s`, `1h0m0s`, `45s`).

const unitSeconds: Record<string, number> = { ns: 1e-9, us: 1e-6, 'µs': 1e-6, 'μs': 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };

/** Seconds in a Go duration string, or undefined when it is not one. */
export function parseDuration(text: string): number | undefined {
  const match = /^([-+]?)(.*)$/.exec(text)!;
  const [, sign, rest = ''] = match;
  if (rest === '0') return 0;
  if (rest === '') return undefined;
  let seconds = 0;
  const part = /(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;
  let at = 0;
  while (at < rest.length) {
    part.lastIndex = at;
    const m = part.exec(rest);
    if (!m) return undefined;
    seconds += Number(m[1]) * unitSeconds[m[2]!]!;
    at = part.lastIndex;
  }
  return sign === '-' ? -seconds : seconds;
}

/** Go's Duration.String() of a whole number of seconds. */
export function formatSeconds(total: number): string {
  if (total === 0) return '0s';
  const sign = total < 0 ? '-' : '';
  let rest = Math.abs(total);
  const h = Math.floor(rest / 3600);
  rest -= h * 3600;
  const m = Math.floor(rest / 60);
  const s = rest - m * 60;
  if (h > 0) return `${sign}${h}h${m}m${s}s`;
  if (m > 0) return `${sign}${m}m${s}s`;
  return `${sign}${s}s`;
}
