// How the Metal3 IP address manager picks an address for a claim, as pure functions: the address at
// an index of one pool range (`GetIPAddress`), the first free address over all ranges, claims named
// in `preAllocations`, exhaustion, the IPAddress naming rule and the pool's bookkeeping. Also a
// validation of ranges the real manager does not do before allocating: its results only enrich the
// error message, the decisions stay the real manager's.
import type { IPPoolSpec, IPPoolSpecPools } from '@metal3-ts/generated/ipam.metal3.io/v1alpha1';
import { bitsOf, canonicalIP, formatIP, formatSubnet, type IP, maxValue, parseCIDR, parseIP, type Subnet, subnetContains } from './address.ts';

/** Claim status messages, spelled as the real manager writes them (typo included). */
export const EXHAUSTED_MESSAGE = 'Exhausted IP Pools';
export const PREALLOCATED_OUT_OF_BOUNDS_MESSAGE = 'Pre-allocated IP out of bond';

export type PoolEntry = IPPoolSpecPools;

export type EntryAddress = { readonly address: IP } | { readonly error: string };

interface ParsedEntry {
  readonly start?: IP;
  readonly end?: IP;
  readonly subnet?: Subnet;
}

function parseEntry(entry: PoolEntry): ParsedEntry | { error: string } {
  const parsed: { start?: IP; end?: IP; subnet?: Subnet } = {};
  if (entry.start !== undefined) {
    const start = parseIP(entry.start);
    if (!start) return { error: `invalid start ${JSON.stringify(entry.start)}` };
    parsed.start = start;
  }
  if (entry.end !== undefined) {
    const end = parseIP(entry.end);
    if (!end) return { error: `invalid end ${JSON.stringify(entry.end)}` };
    parsed.end = end;
  }
  if (entry.subnet !== undefined) {
    const subnet = parseCIDR(entry.subnet);
    if (!subnet) return { error: `invalid subnet ${JSON.stringify(entry.subnet)}` };
    parsed.subnet = subnet;
  }
  return parsed;
}

/**
 * The address at `index` of one range: `start + index` bounded by `end` and `subnet` when given, or,
 * with a subnet alone, `network + 1 + index` bounded by the subnet (so the last address of the subnet
 * is handed out too, as the real manager does). An error means the range has no such address.
 */
export function entryAddress(entry: PoolEntry, index: bigint): EntryAddress {
  const parsed = parseEntry(entry);
  if ('error' in parsed) return parsed;
  const { start, end, subnet } = parsed;
  const base = start ?? (subnet ? { family: subnet.network.family, value: subnet.network.value + 1n } : undefined);
  if (!base) return { error: 'either start or subnet is required' };
  const address: IP = { family: base.family, value: base.value + index };
  if (index < 0n || address.value > maxValue(address.family)) return { error: `address overflow past ${formatIP(base)}` };
  if (start && end && (end.family !== start.family || address.value > end.value)) return { error: 'address out of bounds' };
  if (subnet && !subnetContains(subnet, address)) return { error: 'address out of bounds' };
  return { address };
}

/** Where a range's index 0 is, so an address's index is one subtraction away. */
function entryBase(entry: PoolEntry): IP | undefined {
  const parsed = parseEntry(entry);
  if ('error' in parsed) return undefined;
  if (parsed.start) return parsed.start;
  return parsed.subnet ? { family: parsed.subnet.network.family, value: parsed.subnet.network.value + 1n } : undefined;
}

/** Whether `address` is one the range can hand out. */
export function entryIncludes(entry: PoolEntry, address: IP): boolean {
  const base = entryBase(entry);
  if (!base || base.family !== address.family || address.value < base.value) return false;
  const at = entryAddress(entry, address.value - base.value);
  return 'address' in at && at.address.value === address.value;
}

/**
 * Problems with one range that make it hand out fewer addresses than its author meant (or none).
 * The real manager accepts such ranges silently; the simulator names them in the claim's error.
 */
export function validatePoolEntry(entry: PoolEntry): string[] {
  const parsed = parseEntry(entry);
  if ('error' in parsed) return [parsed.error];
  const { start, end, subnet } = parsed;
  const problems: string[] = [];
  if (!start && !subnet) problems.push('either start or subnet is required');
  if (start && end) {
    if (start.family !== end.family) problems.push(`start ${formatIP(start)} and end ${formatIP(end)} are of different IP families`);
    else if (start.value > end.value) problems.push(`start ${formatIP(start)} is after end ${formatIP(end)}`);
  }
  if (subnet) {
    if (start && !subnetContains(subnet, start)) problems.push(`start ${formatIP(start)} is not in subnet ${formatSubnet(subnet)}`);
    if (end && !subnetContains(subnet, end)) problems.push(`end ${formatIP(end)} is not in subnet ${formatSubnet(subnet)}`);
  }
  const family = start?.family ?? subnet?.network.family;
  if (family !== undefined && entry.prefix !== undefined && entry.prefix > bitsOf(family)) {
    problems.push(`prefix ${entry.prefix} is longer than an IPv${family} address`);
  }
  if (entry.gateway !== undefined && family !== undefined && parseIP(entry.gateway)?.family !== family) {
    problems.push(`gateway ${entry.gateway} is not an IPv${family} address`);
  }
  return problems;
}

/** Every range problem of a pool, each prefixed with the range's place in `spec.pools`. */
export function validatePool(spec: Pick<IPPoolSpec, 'pools'>): string[] {
  const pools = spec.pools ?? [];
  if (pools.length === 0) return ['spec.pools is empty'];
  return pools.flatMap((entry, i) => validatePoolEntry(entry).map((problem) => `pools[${i}]: ${problem}`));
}

export interface Allocation {
  readonly address: string;
  readonly prefix: number;
  readonly gateway?: string;
  readonly dnsServers?: readonly string[];
}

export type AllocationOutcome = { readonly allocation: Allocation } | { readonly error: string };

/** The first address of the range not in `inUse`, scanning upwards from index 0. */
function firstFree(entry: PoolEntry, inUse: ReadonlySet<string>): IP | undefined {
  // Every taken address costs one step, so the scan ends even for an unbounded or huge range.
  for (let index = 0n;; index++) {
    const at = entryAddress(entry, index);
    if ('error' in at) return undefined;
    if (!inUse.has(formatIP(at.address))) return at.address;
  }
}

/**
 * Picks the address for claim `claimName`: its pre-allocated address when the pool names one (even
 * though that address counts as in use), else the first free address of the first range that has
 * one. The pool's `prefix`, `gateway` and `dnsServers` apply unless the chosen range sets its own.
 *
 * `inUse` holds canonical address text (see `poolInventory`). Failures carry the real manager's
 * message, followed by the range problems found by `validatePool` when there are any.
 */
export function allocate(spec: IPPoolSpec, claimName: string, inUse: ReadonlySet<string>): AllocationOutcome {
  const preAllocated = spec.preAllocations?.[claimName];
  const wanted = preAllocated === undefined ? undefined : parseIP(preAllocated);
  for (const entry of spec.pools ?? []) {
    let chosen: IP | undefined;
    if (preAllocated !== undefined) chosen = wanted && entryIncludes(entry, wanted) ? wanted : undefined;
    else chosen = firstFree(entry, inUse);
    if (!chosen) continue;
    const gateway = entry.gateway ?? spec.gateway;
    const dnsServers = entry.dnsServers?.length ? entry.dnsServers : spec.dnsServers;
    return {
      allocation: {
        address: formatIP(chosen),
        prefix: entry.prefix || spec.prefix || 0,
        ...(gateway !== undefined ? { gateway } : {}),
        ...(dnsServers !== undefined ? { dnsServers: [...dnsServers] } : {}),
      },
    };
  }
  const message = preAllocated !== undefined ? PREALLOCATED_OUT_OF_BOUNDS_MESSAGE : EXHAUSTED_MESSAGE;
  const problems = validatePool(spec);
  return { error: problems.length > 0 ? `${message} (invalid pool: ${problems.join('; ')})` : message };
}

/**
 * The IPAddress name for an address: `<namePrefix>-<address>` with dots and colons turned into
 * dashes and trailing dashes dropped (`pool-192-168-0-10`, `pool-fd00--5`, `pool-fd00` for `fd00::`).
 */
export function addressName(namePrefix: string, address: string): string {
  return `${namePrefix}-${address.replace(/[.:]/g, '-')}`.replace(/-+$/, '');
}

/** One allocation as recorded by an IPAddress object of the pool (either API group). */
export interface RecordedAddress {
  /** The claim's name; '' when the address names none (still counts as in use). */
  readonly claimName: string;
  readonly address: string;
}

export interface PoolInventory {
  /** `status.indexes`: claim name → address. */
  readonly indexes: Record<string, string>;
  /** Canonical text of every address that must not be handed out again. */
  readonly inUse: Set<string>;
}

/**
 * The pool's view of what is taken: every recorded address, plus the pre-allocated addresses unless
 * the pool is being deleted (a deleting pool waits only for real allocations to go).
 */
export function poolInventory(spec: Pick<IPPoolSpec, 'preAllocations'>, recorded: readonly RecordedAddress[], deleting: boolean): PoolInventory {
  const indexes: Record<string, string> = {};
  const inUse = new Set<string>();
  if (!deleting) { for (const address of Object.values(spec.preAllocations ?? {})) inUse.add(canonicalIP(address) ?? address); }
  for (const { claimName, address } of recorded) {
    indexes[claimName] = address;
    inUse.add(canonicalIP(address) ?? address);
  }
  return { indexes, inUse };
}
