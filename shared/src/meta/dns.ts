// Names and addresses as Kubernetes spells them, in one place: the 253-character limit of a DNS
// subdomain (every object name, every hostname), RFC 1123 names, and IP address text. Callers check
// values they did not choose (inspection data from a machine, a user's endpoint, names derived from
// other names) before they write them, so a value the apiserver would refuse never loops on 422.
//
// IP text follows Go's net.ParseIP, which Kubernetes validates with: dotted quads without leading
// zeros, RFC 4291 IPv6 with an optional IPv4 tail, no zone (`%eth0`) and no prefix (`/24`). Node's
// `net.isIP` accepts zones, so it is not used.

/** The longest DNS subdomain (RFC 1123): the limit of an object name and of a hostname. */
export const MAX_DNS_NAME_LENGTH = 253;
const MAX_LABEL_LENGTH = 63;

const IPV4_PART = '(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`^${IPV4_PART}(\\.${IPV4_PART}){3}$`);
const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;

/** Dotted quad without leading zeros. */
export function isIPv4(text: string): boolean {
  return IPV4.test(text);
}

/** RFC 4291 text: eight groups, one `::` standing for one or more zero groups, an optional IPv4 tail; no zone. */
export function isIPv6(text: string): boolean {
  if (text.length > 45 || !text.includes(':')) return false;
  const halves = text.split('::');
  if (halves.length > 2) return false;
  const groups = (half: string | undefined): string[] => (half ? half.split(':') : []);
  const all = [...groups(halves[0]), ...groups(halves[1])];
  const v4Tail = isIPv4(all[all.length - 1] ?? '');
  const hex = v4Tail ? all.slice(0, -1) : all;
  if (!hex.every((group) => HEX_GROUP.test(group))) return false;
  const width = hex.length + (v4Tail ? 2 : 0);
  return halves.length === 2 ? width <= 7 : width === 8;
}

/** An IPv4 or IPv6 address. */
export function isIP(text: string): boolean {
  return isIPv4(text) || isIPv6(text);
}

/** Departures from strict RFC 1123 that a caller may allow. */
export interface DnsNameRules {
  /** `_` inside a label, as DNS itself allows and some sites use in internal names. */
  readonly underscore?: boolean;
  /** One trailing `.` (a fully qualified name); it does not count toward the length. */
  readonly trailingDot?: boolean;
}

const STRICT_LABEL = new RegExp(`^[A-Za-z0-9]([A-Za-z0-9-]{0,${MAX_LABEL_LENGTH - 2}}[A-Za-z0-9])?$`);
const UNDERSCORE_LABEL = new RegExp(`^[A-Za-z0-9_]([A-Za-z0-9_-]{0,${MAX_LABEL_LENGTH - 2}}[A-Za-z0-9_])?$`);

/** Dot-separated labels of 1-63 letters, digits and inner `-`, at most 253 characters; case is kept. */
export function isDnsName(text: string, rules: DnsNameRules = {}): boolean {
  const name = rules.trailingDot && text.endsWith('.') ? text.slice(0, -1) : text;
  if (name.length === 0 || name.length > MAX_DNS_NAME_LENGTH) return false;
  const label = rules.underscore ? UNDERSCORE_LABEL : STRICT_LABEL;
  return name.split('.').every((part) => label.test(part));
}
