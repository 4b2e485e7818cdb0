// Counting a bundled controller's requests as seen on the wire, in the apiserver's terms. The verb
// and resource of one request come from the harness's own reading of method and path (`requestOf`,
// shared/src/controller/refusal.ts, which names a refused request the same way); why count at a proxy:
// the restart benchmark's process carries only the HTTP method in its rest_client metrics, and a write
// after a restart must be named by resource and verb. Also reads sums out of a Prometheus text
// exposition (the process's /metrics).

/** A request's Kubernetes verb and resource (`plural[/subresource][.group]`), as `requestOf` gives them. */
export interface RequestKind {
  readonly verb: string;
  readonly resource: string;
}

export const READ_VERBS: ReadonlySet<string> = new Set(['get', 'list', 'watch']);

/** Counts per `verb resource`, most first. */
export function tallyKinds(kinds: readonly RequestKind[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const k of kinds) counts.set(`${k.verb} ${k.resource}`, (counts.get(`${k.verb} ${k.resource}`) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

/** Sum of every sample of `family` whose labels include all of `labels` (0 when none). */
export function metricSum(text: string, family: string, labels: Readonly<Record<string, string>> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(family)) continue;
    const rest = line.slice(family.length);
    if (rest[0] !== '{' && rest[0] !== ' ') continue;
    const close = rest.lastIndexOf('}');
    const labelText = rest[0] === '{' ? rest.slice(1, close) : '';
    const value = Number(rest.slice(rest[0] === '{' ? close + 1 : 0).trim().split(' ')[0]);
    const has = (k: string, v: string) => labelText.includes(`${k}="${v}"`);
    if (Object.entries(labels).every(([k, v]) => has(k, v)) && Number.isFinite(value)) sum += value;
  }
  return sum;
}
