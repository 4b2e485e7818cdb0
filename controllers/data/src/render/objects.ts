// Reading the related objects a template refers to: names, labels and
// annotations of the Metal3Machine, Machine or BareMetalHost (DR-10), NIC MACs
// from the host's hardware inventory (DR-4), its boot MAC (B2-21) and link MAC
// addresses (DR-14).

import type { ObjectMeta } from '@metal3-ts/generated';
import { type RelatedObjects, RenderError } from './types.ts';

/** An `{object, annotation}` pair as templates write it. */
export interface AnnotationRef {
  object: string;
  annotation: string;
}

/** A link's MAC source (ethernets, bonds and vlans share the shape). */
export interface MacSource {
  string?: string;
  fromHostInterface?: string;
  fromAnnotation?: AnnotationRef;
}

const MAC_ADDRESS = /^([0-9A-Fa-f]{2}[:-]){5}([0-9A-Fa-f]{2})$/;

/**
 * Metadata of the object named by a template's `object` field (compared
 * case-insensitively, as upstream does); `field` names that template field.
 */
export function objectMeta(object: string, objects: RelatedObjects, field: string): ObjectMeta {
  switch (object.toLowerCase()) {
    case 'metal3machine':
      return objects.metal3Machine.metadata;
    case 'machine':
      return objects.machine.metadata;
    case 'baremetalhost':
      return objects.host.metadata;
    default:
      throw new RenderError('UnknownObjectType', field, 'Unknown object type');
  }
}

/** Annotation value on the referenced object, `""` when absent. */
export function annotationValue(ref: AnnotationRef, objects: RelatedObjects, field: string): string {
  return objectMeta(ref.object, objects, `${field}.object`).annotations?.[ref.annotation] ?? '';
}

/** MAC of the first host NIC with that name (not validated, DR-4). */
export function hostNicMac(objects: RelatedObjects, name: string, field: string): string {
  const nics = objects.host.status?.hardware?.nics;
  if (nics === undefined) throw new RenderError('NicsNotPopulated', field, 'NICs list not populated');
  const nic = nics.find((n) => n.name === name);
  if (nic === undefined) throw new RenderError('NicNotFound', field, `NIC name not found ${name}`);
  return nic.mac ?? '';
}

/**
 * The MAC the host boots from, `spec.bootMACAddress` (B2-21), for metadata key `key`. Not validated,
 * like a NIC's MAC (DR-4): the host's own schema checks it. Empty is an error, not an empty value.
 */
export function bootMac(objects: RelatedObjects, key: string, field: string): string {
  const mac = objects.host.spec?.bootMACAddress ?? '';
  if (mac !== '') return mac;
  const { namespace, name } = objects.host.metadata;
  throw new RenderError('NoBootMac', field, `metadata key "${key}": BareMetalHost ${namespace ?? ''}/${name ?? ''} spec.bootMACAddress is empty`);
}

/** Resolves and validates a link MAC address (DR-14). */
export function linkMac(source: MacSource | undefined, objects: RelatedObjects, field: string): string {
  let mac: string;
  if (source?.string !== undefined) {
    mac = source.string;
  } else if (source?.fromHostInterface !== undefined) {
    mac = hostNicMac(objects, source.fromHostInterface, `${field}.fromHostInterface`);
  } else if (source?.fromAnnotation !== undefined) {
    mac = annotationValue(source.fromAnnotation, objects, `${field}.fromAnnotation`);
  } else {
    throw new RenderError('NoMacAddress', field, 'no MAC address given');
  }
  if (!isMacAddress(mac)) throw new RenderError('BadMacAddress', field, `bad MAC address: ${mac}`);
  return mac;
}

/** Six hex pairs separated by `:` or `-` (mixed separators allowed, as upstream). */
export function isMacAddress(mac: string): boolean {
  return MAC_ADDRESS.test(mac);
}
