// IP addresses as numbers: parsing and printing IPv4 and IPv6 text, CIDR subnets and containment,
// IP-version agnostic the way the Metal3 IP address manager treats them. Addresses are compared by
// value, so `fd00::0005` and `fd00::5` are the same address.

export type IPFamily = 4 | 6;

export interface IP {
  readonly family: IPFamily;
  readonly value: bigint;
}

export interface Subnet {
  /** The network address (host bits cleared). */
  readonly network: IP;
  readonly prefix: number;
}

const BITS: Record<IPFamily, number> = { 4: 32, 6: 128 };

export const bitsOf = (family: IPFamily): number => BITS[family];

/** The largest address of a family. */
export const maxValue = (family: IPFamily): bigint => (1n << BigInt(BITS[family])) - 1n;

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const HEXTET = /^[0-9a-fA-F]{1,4}$/;

function parseIPv4(text: string): bigint | undefined {
  const m = IPV4.exec(text);
  if (!m) return undefined;
  let value = 0n;
  for (const part of m.slice(1)) {
    // Leading zeros are refused (as Go's net.ParseIP does): `010` could be read as octal.
    if (part.length > 1 && part.startsWith('0')) return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    value = (value << 8n) | BigInt(n);
  }
  return value;
}

function parseHextets(text: string): bigint[] | undefined {
  if (text === '') return [];
  const groups: bigint[] = [];
  const parts = text.split(':');
  for (const [i, part] of parts.entries()) {
    // An embedded IPv4 address may close the text (`::ffff:192.0.2.1`).
    if (i === parts.length - 1 && part.includes('.')) {
      const v4 = parseIPv4(part);
      if (v4 === undefined) return undefined;
      groups.push(v4 >> 16n, v4 & 0xffffn);
    } else if (HEXTET.test(part)) {
      groups.push(BigInt(`0x${part}`));
    } else {
      return undefined;
    }
  }
  return groups;
}

function parseIPv6(text: string): bigint | undefined {
  const double = text.indexOf('::');
  if (double !== text.lastIndexOf('::')) return undefined;
  let groups: bigint[];
  if (double < 0) {
    const all = parseHextets(text);
    if (!all || all.length !== 8) return undefined;
    groups = all;
  } else {
    const head = parseHextets(text.slice(0, double));
    const tail = parseHextets(text.slice(double + 2));
    if (!head || !tail || head.length + tail.length > 7) return undefined;
    groups = [...head, ...Array<bigint>(8 - head.length - tail.length).fill(0n), ...tail];
  }
  return groups.reduce((value, group) => (value << 16n) | group, 0n);
}

/** Parses IPv4 dotted-quad or IPv6 text; undefined when it is neither. */
export function parseIP(text: string): IP | undefined {
  if (text.includes(':')) {
    const value = parseIPv6(text);
    return value === undefined ? undefined : { family: 6, value };
  }
  const value = parseIPv4(text);
  return value === undefined ? undefined : { family: 4, value };
}

/** Canonical text: dotted quad, or RFC 5952 IPv6 (lower case, longest zero run of 2+ groups as `::`). */
export function formatIP(ip: IP): string {
  if (ip.family === 4) {
    return [24n, 16n, 8n, 0n].map((shift) => String((ip.value >> shift) & 0xffn)).join('.');
  }
  const groups = Array.from({ length: 8 }, (_, i) => Number((ip.value >> BigInt(16 * (7 - i))) & 0xffffn));
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = (g: number[]) => g.map((n) => n.toString(16)).join(':');
  if (bestStart < 0) return hex(groups);
  return `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLength))}`;
}

/** The canonical text of an address given as text, or undefined when it does not parse. */
export function canonicalIP(text: string): string | undefined {
  const ip = parseIP(text);
  return ip ? formatIP(ip) : undefined;
}

/** Parses `address/prefix`; the network is the address with its host bits cleared. */
export function parseCIDR(text: string): Subnet | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const ip = parseIP(text.slice(0, slash));
  const prefixText = text.slice(slash + 1);
  if (!ip || !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  if (prefix > BITS[ip.family]) return undefined;
  const hostBits = BigInt(BITS[ip.family] - prefix);
  return { network: { family: ip.family, value: (ip.value >> hostBits) << hostBits }, prefix };
}

/** The last address of a subnet (all host bits set). */
export function lastAddress(subnet: Subnet): IP {
  const hostBits = BigInt(BITS[subnet.network.family] - subnet.prefix);
  return { family: subnet.network.family, value: subnet.network.value | ((1n << hostBits) - 1n) };
}

export function subnetContains(subnet: Subnet, ip: IP): boolean {
  if (ip.family !== subnet.network.family) return false;
  return ip.value >= subnet.network.value && ip.value <= lastAddress(subnet).value;
}

export function formatSubnet(subnet: Subnet): string {
  return `${formatIP(subnet.network)}/${subnet.prefix}`;
}
