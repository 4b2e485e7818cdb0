// Netmask text for a prefix length (DR-19), as Go's net.IP.String() prints
// net.CIDRMask(prefix, bits): dotted quad for IPv4, RFC 5952 text for IPv6.

/** Dotted IPv4 mask of a prefix length 0…32, or undefined outside that range. */
export function ipv4Mask(prefix: number): string | undefined {
  const bytes = maskBytes(prefix, 32);
  return bytes?.join('.');
}

/** Compressed IPv6 mask of a prefix length 0…128, or undefined outside that range. */
export function ipv6Mask(prefix: number): string | undefined {
  const bytes = maskBytes(prefix, 128);
  return bytes === undefined ? undefined : ipv6Text(bytes);
}

function maskBytes(prefix: number, bits: number): number[] | undefined {
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > bits) return undefined;
  const bytes: number[] = [];
  for (let i = 0; i < bits / 8; i++) {
    const ones = Math.min(Math.max(prefix - i * 8, 0), 8);
    bytes.push((0xff << (8 - ones)) & 0xff);
  }
  return bytes;
}

/** Go's IPv6 text: lower-case hex groups, the longest run (≥ 2) of zero groups as `::`. */
function ipv6Text(bytes: readonly number[]): string {
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0));
  let bestStart = -1;
  let bestLength = 0;
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j === i ? i + 1 : j;
  }
  const hex = (g: number) => g.toString(16);
  if (bestLength < 2) return groups.map(hex).join(':');
  const head = groups.slice(0, bestStart).map(hex).join(':');
  const tail = groups.slice(bestStart + bestLength).map(hex).join(':');
  return `${head}::${tail}`;
}
