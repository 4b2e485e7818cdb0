// Node backup and restore of the classic remediation mode (RS-14): the Node's annotations and labels
// are kept on the Metal3Remediation as compact JSON with sorted keys while the Node is deleted, and
// given to the Node that registers after the power cycle, without overwriting what it already has.
// Pure functions; the controller does the writes.

/** Compact JSON of a map with its keys sorted; an absent map is "" (Go's nil map). */
export function serialiseMap(map: Readonly<Record<string, string>> | undefined): string {
  if (!map) return '';
  return JSON.stringify(Object.fromEntries(Object.keys(map).sort().map((k) => [k, map[k]!])));
}

/** A stored backup back as a map; "" or unreadable text is empty (upstream logs it and goes on). */
export function parseBackup(text: string | undefined): Record<string, string> {
  if (!text) return {};
  try {
    const value: unknown = JSON.parse(text);
    if (!value || typeof value !== 'object' || Array.isArray(value)) return {};
    return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    return {};
  }
}

/** The keys of `backup` the Node lacks added to `current`; undefined when nothing is missing. */
export function restoredMap(
  current: Readonly<Record<string, string>> | undefined,
  backup: Readonly<Record<string, string>>,
): Record<string, string> | undefined {
  const missing = Object.entries(backup).filter(([k]) => !(current && k in current));
  return missing.length ? { ...current, ...Object.fromEntries(missing) } : undefined;
}
