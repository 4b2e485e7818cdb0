// M-31 (changed): the Metal3Machine's addresses from the host's inspection data. That data comes from
// the machine itself (the ramdisk reports what the hardware and its DHCP say), so it is filtered and
// bounded before it is copied: a value the Metal3Machine schema refuses (an address over 256
// characters) would fail every status patch of the machine, and a NIC "address" that is no IP would be
// handed on to Cluster API as one. What is dropped is returned in words, for the log and an event.
import type { Metal3MachineStatusAddresses } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { isDnsName, isIP, MAX_DNS_NAME_LENGTH } from '@metal3-ts/shared/meta/dns';
import type { CachedHost } from './projections.ts';

/** At most this many addresses (CAPM3 v1beta2's `maxItems` on `status.addresses`). */
export const MAX_ADDRESSES = 32;

export interface HostAddresses {
  readonly addresses: Metal3MachineStatusAddresses[];
  /** One phrase per dropped value (or group of values), empty when everything was kept. */
  readonly dropped: readonly string[];
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
export function hostAddresses(host: Readonly<CachedHost>): HostAddresses {
  const hardware = host.status?.hardware;
  if (!hardware) return { addresses: [], dropped: [] };
  const dropped: string[] = [];
  const hostname = hardware.hostname ?? '';
  const named = hostname !== '' && isDnsName(hostname);
  if (hostname !== '' && !named) dropped.push(`hostname ${quote(hostname)} (not a DNS name of at most ${MAX_DNS_NAME_LENGTH} characters)`);

  const room = MAX_ADDRESSES - (named ? 2 : 0);
  const addresses: Metal3MachineStatusAddresses[] = [];
  let over = 0;
  for (const nic of hardware.nics ?? []) {
    const ip = nic.ip ?? '';
    if (ip === '') continue;
    if (!isIP(ip)) {
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
