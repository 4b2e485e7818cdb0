// Go's time.ParseDuration for `spec.strategy.timeout` (a metav1.Duration string such as `10m` or
// `1h30m0s`); the CRD has already refused anything else, so a bad value here only means "unset".

const UNIT_MS: Readonly<Record<string, number>> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds of a Go duration string; undefined when it is not one. */
export function parseGoDuration(text: string | undefined): number | undefined {
  if (!text || !/^([0-9]+(\.[0-9]*)?(ns|us|µs|ms|s|m|h))+$/.test(text)) return undefined;
  let total = 0;
  for (const [, number, , unit] of text.matchAll(/([0-9]+(\.[0-9]*)?)(ns|us|µs|ms|s|m|h)/g)) total += Number(number) * UNIT_MS[unit!]!;
  return total;
}
