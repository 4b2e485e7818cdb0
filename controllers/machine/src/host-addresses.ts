// M-31 (changed): the Metal3Machine's addresses from the host's inspection data. That data comes from
// the machine itself (the ramdisk reports what the hardware and its DHCP say), so it is filtered and
// bounded before it is copied: a value the Metal3Machine schema refuses (an address over 256
// characters) would fail every status patch of the machine, and a NIC "address" that is no IP would be
// handed on to Cluster API as one. What is dropped is returned in words, for the log and an event.
import type { Metal3MachineStatusAddresses } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';

/** At most this many addresses (CAPM3 v1beta2's `maxItems` on `status.addresses`). */
export const MAX_ADDRESSES = 32;
/** A DNS name's limit (RFC 1123), below the schema's 256 per address. */
export const MAX_HOSTNAME = 253;

export interface HostAddresses {
  readonly addresses: Metal3MachineStatusAddresses[];
  /** One phrase per dropped value (or group of values), empty when everything was kept. */
  readonly dropped: readonly string[];
}

const IPV4_PART = '(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`^${IPV4_PART}(\\.${IPV4_PART}){3}$`);
const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;

/** Dotted quad without leading zeros (as Go's net.ParseIP, which Kubernetes uses). */
export function isIPv4(text: string): boolean {
  return IPV4.test(text);
}

/** RFC 4291 text: eight groups, one `::` standing for one or more zero groups, an optional IPv4 tail; no zone. */
export function isIPv6(text: string): boolean {
  if (text.length > 45 || !text.includes(':')) return false;
  const halves = text.split('::');
  if (halves.length > 2) return false;
  const groups = (half: string | undefined): string[] => (half ? half.split(':') : []);
  const head = groups(halves[0]);
  const tail = groups(halves[1]);
  const all = [...head, ...tail];
  const last = all[all.length - 1] ?? '';
  const v4Tail = isIPv4(last);
  const hex = v4Tail ? all.slice(0, -1) : all;
  if (!hex.every((group) => HEX_GROUP.test(group))) return false;
  const width = hex.length + (v4Tail ? 2 : 0);
  return halves.length === 2 ? width <= 7 : width === 8;
}

const LABEL = /^[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/;

/** A DNS name (RFC 1123 labels of 1-63 characters, dot-separated, ≤ 253 in all); case is kept. */
export function isHostname(text: string): boolean {
  return text.length > 0 && text.length <= MAX_HOSTNAME && text.split('.').every((label) => LABEL.test(label));
}

/** A value as a message may quote it: short values whole, long ones by their length. */
function quote(value: string): string {
  return value.length <= 64 ? JSON.stringify(value) : `of ${value.length} characters`;
}

/**
 * An InternalIP per NIC with a valid IPv4 or IPv6 address, then the hostname as Hostname and
 * InternalDNS when it is a valid DNS name; at most MAX_ADDRESSES in all (room is kept for the
 * hostname's two). No hardware details, no addresses.
 */
export function hostAddresses(host: Readonly<BareMetalHost>): HostAddresses {
  const hardware = host.status?.hardware;
  if (!hardware) return { addresses: [], dropped: [] };
  const dropped: string[] = [];
  const hostname = hardware.hostname ?? '';
  const named = hostname !== '' && isHostname(hostname);
  if (hostname !== '' && !named) dropped.push(`hostname ${quote(hostname)} (not a DNS name of at most ${MAX_HOSTNAME} characters)`);

  const room = MAX_ADDRESSES - (named ? 2 : 0);
  const addresses: Metal3MachineStatusAddresses[] = [];
  let over = 0;
  for (const nic of hardware.nics ?? []) {
    const ip = nic.ip ?? '';
    if (ip === '') continue;
    if (!isIPv4(ip) && !isIPv6(ip)) {
      dropped.push(`NIC ${quote(nic.name ?? '')} address ${quote(ip)} (not an IP address)`);
    } else if (addresses.length < room) {
      addresses.push({ type: 'InternalIP', address: ip });
    } else {
      over++;
    }
  }
  if (over > 0) dropped.push(`${over} NIC address(es) beyond the first ${room}`);
  if (named) addresses.push({ type: 'Hostname', address: hostname }, { type: 'InternalDNS', address: hostname });
  return { addresses, dropped };
}
