// What inspection reports. Real hardware details come from Ironic's ramdisk; here they are derived
// from the host's name (a SHA-256 of it picks MACs, IPs, sizes and serials), so the same host always
// inspects the same way, and a test can override any part through the HARDWARE_ANNOTATION.
import { createHash } from 'node:crypto';
import type { BareMetalHost, BareMetalHostStatusHardware } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { applyMergePatch } from '@metal3-ts/shared/patch/diff';
import { HARDWARE_ANNOTATION } from './names.ts';

/** The hardware annotation is not a JSON object of known hardware fields. */
export class HardwareOverrideError extends Error {
  override name = 'HardwareOverrideError';
}

function digest(seed: string): Uint8Array {
  return new Uint8Array(createHash('sha256').update(seed).digest());
}

const hex = (bytes: Uint8Array): string => [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
const pick = <T>(choices: readonly T[], byte: number): T => choices[byte % choices.length] as T;
const at = (bytes: Uint8Array, i: number): number => bytes[i % bytes.length] ?? 0;

/** A UUID-shaped id derived from `seed` (Ironic's node UUID stands in `status.provisioning.ID`). */
export function stableUuid(seed: string): string {
  const h = hex(digest(seed)).slice(0, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h.slice(16, 17), 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${
    h.slice(20, 32)
  }`;
}

/** Ironic's node UUID for the host (`status.provisioning.ID`), from its name so a moved host keeps it. */
export function ironicNodeId(host: Readonly<BareMetalHost>): string {
  return stableUuid(`ironic/${host.metadata.namespace ?? ''}/${host.metadata.name ?? ''}`);
}

function mac(bytes: Uint8Array, offset: number): string {
  // 52:54:00 is the QEMU prefix the metal3 dev environment's virtual hosts carry.
  return ['52', '54', '00', ...[0, 1, 2].map((i) => at(bytes, offset + i).toString(16).padStart(2, '0'))].join(':');
}

/** The hardware of the host named `name` in `namespace`, before any override. */
export function generatedHardware(host: Readonly<BareMetalHost>): BareMetalHostStatusHardware {
  const name = host.metadata.name ?? '';
  const b = digest(`${host.metadata.namespace ?? ''}/${name}`);
  const serial = hex(b.slice(8, 14)).toUpperCase();
  const bigDisk = at(b, 20) % 2 === 1;
  return {
    hostname: name,
    systemVendor: { manufacturer: 'metal3-ts', productName: 'Simulated Server', serialNumber: `SIM${serial}` },
    firmware: { bios: { vendor: 'metal3-ts', version: `1.${at(b, 14) % 10}.0`, date: '01/01/2025' } },
    cpu: {
      arch: host.spec?.architecture || 'x86_64',
      model: 'Simulated CPU @ 2.40GHz',
      clockMegahertz: 2400,
      count: pick([4, 8, 16, 32], at(b, 15)),
      flags: ['avx2', 'sse4_2', 'vmx'],
    },
    ramMebibytes: pick([8192, 16384, 32768, 65536], at(b, 16)),
    nics: [
      {
        name: 'enp1s0',
        model: '0x1af4 0x0001',
        // The boot NIC reports the MAC the host was registered with, as Ironic matches it.
        mac: host.spec?.bootMACAddress || mac(b, 0),
        ip: `172.22.${at(b, 6)}.${1 + (at(b, 7) % 254)}`,
        speedGbps: 10,
        pxe: true,
      },
      {
        name: 'enp2s0',
        model: '0x1af4 0x0001',
        mac: mac(b, 3),
        ip: `192.168.${at(b, 17)}.${1 + (at(b, 18) % 254)}`,
        speedGbps: 25,
        pxe: false,
      },
    ],
    storage: [
      {
        name: '/dev/sda',
        type: 'SSD',
        rotational: false,
        sizeBytes: 480_103_981_056,
        model: 'SIM SSD 480',
        vendor: 'metal3-ts',
        serialNumber: `S${serial}`,
        hctl: '0:0:0:0',
        wwn: `0x5000${hex(b.slice(21, 27))}`,
      },
      ...(bigDisk
        ? [
          {
            name: '/dev/sdb',
            type: 'HDD' as const,
            rotational: true,
            sizeBytes: 2_000_398_934_016,
            model: 'SIM HDD 2000',
            vendor: 'metal3-ts',
            serialNumber: `H${serial}`,
            hctl: '0:0:1:0',
            wwn: `0x5000${hex(b.slice(27, 32))}`,
          },
        ]
        : []),
    ],
  };
}

// Top-level fields and their JSON shape; anything else is refused, as BMO refuses unknown fields in
// its own hardware-details annotation.
const FIELDS: Record<string, 'string' | 'integer' | 'object' | 'array'> = {
  hostname: 'string',
  ramMebibytes: 'integer',
  cpu: 'object',
  firmware: 'object',
  systemVendor: 'object',
  nics: 'array',
  storage: 'array',
};

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

function parseOverrides(text: string): JsonObject {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new HardwareOverrideError(`annotation ${HARDWARE_ANNOTATION} is not valid JSON: ${(error as Error).message}`);
  }
  if (!isObject(value)) throw new HardwareOverrideError(`annotation ${HARDWARE_ANNOTATION} must hold a JSON object`);
  for (const [key, field] of Object.entries(value)) {
    const kind = FIELDS[key];
    if (!kind) throw new HardwareOverrideError(`annotation ${HARDWARE_ANNOTATION}: unknown field "${key}"`);
    if (field === null) continue;
    const ok = kind === 'integer'
      ? Number.isInteger(field)
      : kind === 'array'
      ? Array.isArray(field) && field.every(isObject)
      : kind === 'object'
      ? isObject(field)
      : typeof field === 'string';
    if (!ok) {
      throw new HardwareOverrideError(
        `annotation ${HARDWARE_ANNOTATION}: field "${key}" must be ${
          kind === 'array' ? 'an array of objects' : `a${kind === 'integer' || kind === 'object' ? 'n' : ''} ${kind}`
        }`,
      );
    }
  }
  return value;
}

/**
 * What inspection of `host` reports: the generated hardware with the annotation's overrides applied.
 * Throws HardwareOverrideError when the annotation is malformed.
 */
export function inspectedHardware(host: Readonly<BareMetalHost>): BareMetalHostStatusHardware {
  const generated = generatedHardware(host);
  const text = host.metadata.annotations?.[HARDWARE_ANNOTATION];
  if (text === undefined) return generated;
  // A JSON merge patch (RFC 7386): objects merge, arrays and scalars replace, null removes.
  return applyMergePatch(generated, parseOverrides(text));
}
