// What the data controller caches of the Metal3Machines, Machines and hosts it renders for: the
// fields of RelatedObjects and nothing else (research DR-4, DR-10, B2-21, D-9). Each of these kinds is
// cached cluster-wide, a thousand of each at fleet scale, and a real host's hardware inventory alone
// is kilobytes the renderer never reads. In the all-in-one process the full informers serve instead.
import type { Machine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { metadataProjection } from '@metal3-ts/shared/cache/transform';
import type { Projection } from '@metal3-ts/shared/cache/types';
import type { RelatedHost, RelatedMachine, RelatedMetal3Machine } from './render/index.ts';

/** A Metal3Machine's metadata and the template it names (the association checks it points back). */
export const metal3MachineProjection: Projection<Metal3Machine, RelatedMetal3Machine> = {
  name: 'data:template-and-metadata',
  project: ({ apiVersion, kind, metadata, spec }) => ({
    apiVersion,
    kind,
    metadata,
    ...(spec?.dataTemplate ? { spec: { dataTemplate: spec.dataTemplate } } : {}),
  }),
};

/** A Machine's metadata: templates read its names, labels and annotations only. */
export const machineProjection: Projection<Machine, RelatedMachine> = metadataProjection<Machine>();

/** A host's metadata, boot MAC and NICs (its MACs by interface name). */
export const hostProjection: Projection<BareMetalHost, RelatedHost> = {
  name: 'data:macs-and-metadata',
  project: ({ apiVersion, kind, metadata, spec, status }) => ({
    apiVersion,
    kind,
    metadata,
    ...(spec?.bootMACAddress !== undefined ? { spec: { bootMACAddress: spec.bootMACAddress } } : {}),
    ...(status?.hardware?.nics !== undefined ? { status: { hardware: { nics: status.hardware.nics } } } : {}),
  }),
};
