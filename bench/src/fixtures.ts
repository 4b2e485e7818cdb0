// Objects shaped like the ones a real baremetal-operator (v0.12.6) keeps: an inspected host carries
// its hardware inventory in status, which dominates its size. Benchmarks use these so memory figures
// mean something for a real inventory.
import { type BareMetalHost, type BareMetalHostStatus, newBareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
const mac = (host: number, port: number) => `52:54:00:${hex(host >> 8, 2)}:${hex(host & 0xff, 2)}:${hex(port, 2)}`;

export function host(index: number, labels: Record<string, string> = {}): BareMetalHost {
  return newBareMetalHost({
    metadata: { name: `host-${index}`, labels: { 'metal3-ts.dev/rack': `r${index % 8}`, ...labels } },
    spec: {
      online: true,
      bootMACAddress: mac(index, 0),
      bootMode: 'UEFI',
      bmc: { address: `redfish-virtualmedia+https://10.1.${index >> 8}.${index & 0xff}/redfish/v1/Systems/1`, credentialsName: `host-${index}-bmc-secret` },
      rootDeviceHints: { deviceName: '/dev/sda' },
    },
  });
}

/** The status BMO writes after inspection: about 3 KB of JSON, most of it hardware details. */
export function inspectedStatus(index: number): BareMetalHostStatus {
  return {
    errorCount: 0,
    errorMessage: '',
    operationalStatus: 'OK',
    poweredOn: false,
    lastUpdated: '2026-11-22T10:00:00Z',
    provisioning: { ID: `${hex(index, 8)}-1c2d-4e5f-8a9b-0c1d2e3f4a5b`, state: 'available', bootMode: 'UEFI', image: { url: '' } },
    goodCredentials: { credentials: { name: `host-${index}-bmc-secret`, namespace: 'metal3' }, credentialsVersion: '4242' },
    operationHistory: {
      register: { start: '2026-11-22T09:50:00Z', end: '2026-11-22T09:50:05Z' },
      inspect: { start: '2026-11-22T09:50:05Z', end: '2026-11-22T09:55:00Z' },
      provision: { start: null, end: null },
      deprovision: { start: null, end: null },
    },
    hardware: {
      hostname: `host-${index}.lab.example`,
      ramMebibytes: 262_144,
      cpu: {
        arch: 'x86_64',
        model: 'Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz',
        clockMegahertz: 2000,
        count: 64,
        flags: ['avx', 'avx2', 'avx512f', 'sse4_2', 'vmx', 'aes', 'pclmulqdq'],
      },
      firmware: { bios: { vendor: 'Dell Inc.', version: '1.10.2', date: '05/11/2026' } },
      systemVendor: { manufacturer: 'Dell Inc.', productName: 'PowerEdge R650', serialNumber: `SN${hex(index, 6)}` },
      nics: [0, 1, 2, 3].map((port) => ({
        name: `eno${port + 1}`,
        mac: mac(index, port),
        model: '0x14e4 0x16d7',
        ip: port === 0 ? `172.22.${index >> 8}.${index & 0xff}` : '',
        pxe: port === 0,
        speedGbps: 25,
        lldp: { switchID: `switch-${index % 8}`, portID: `Ethernet${port}/${index % 48}`, switchSystemName: `tor-${index % 8}` },
      })),
      storage: [0, 1, 2].map((disk) => ({
        name: `/dev/sd${'abc'[disk]}`,
        alternateNames: [`/dev/disk/by-path/pci-0000:3b:00.0-scsi-0:0:${disk}:0`],
        hctl: `0:0:${disk}:0`,
        model: 'PERC H755 Front',
        rotational: false,
        serialNumber: `S${hex(index, 6)}${disk}`,
        sizeBytes: 1_919_850_381_312,
        type: 'SSD' as const,
        vendor: 'DELL',
        wwn: `0x6f4ee08003${hex(index, 6)}${disk}`,
      })),
    },
  };
}
