// Metal3Machine and Metal3MachineTemplate (AP-8 … AP-15; CV-3c, CV-7, CV-9, CV-10).
// v1beta2 has no "" for unset: an empty providerID, automatedCleaningMode, failureDomain, customDeploy
// method or selector becomes unset on the way to v1beta2. On the way back, the image's checksumType
// and format are written only when set (upstream writes `""`, which v1beta1's enums reject).
import { templateSpec } from './cluster.ts';
import { refToHub, refToSpoke, statusLayoutToHub, statusLayoutToSpoke } from './fields.ts';
import { compact, filled, items, type Json, type JsonMap, list, map, nonEmpty, str, via } from './json.ts';
import type { KindRules } from './kind.ts';

function imageToHub(image: Json | undefined): JsonMap | undefined {
  const i = map(image);
  if (!i || !filled(i['url'])) return undefined;
  const { format, checksumType, checksum, ...rest } = i;
  return compact({ ...rest, checksum: str(checksum) ?? '', checksumType: filled(checksumType), diskFormat: filled(format) });
}

function imageToSpoke(image: Json | undefined): JsonMap | undefined {
  const i = map(image);
  if (!i) return undefined;
  const { diskFormat, checksumType, checksum, ...rest } = i;
  return compact({ ...rest, checksum: str(checksum) ?? '', checksumType: filled(checksumType), format: filled(diskFormat) });
}

/** A selector without labels or expressions selects like none: unset in both versions. */
function selectorOrUnset(selector: Json | undefined): JsonMap | undefined {
  const s = map(selector);
  if (!s) return undefined;
  const labels = map(s['matchLabels']);
  return nonEmpty({
    ...s,
    matchLabels: labels && Object.keys(labels).length > 0 ? labels : undefined,
    matchExpressions: items(s['matchExpressions'], (e) => e),
  });
}

export function machineSpecToHub(spec: JsonMap): JsonMap {
  const customDeploy = map(spec['customDeploy']);
  return compact({
    ...spec,
    providerID: filled(spec['providerID']),
    automatedCleaningMode: filled(spec['automatedCleaningMode']),
    failureDomain: filled(spec['failureDomain']),
    customDeploy: customDeploy && filled(customDeploy['method']) ? customDeploy : undefined,
    hostSelector: selectorOrUnset(spec['hostSelector']),
    image: imageToHub(spec['image']),
    dataTemplate: refToHub(spec['dataTemplate']),
  });
}

export function machineSpecToSpoke(spec: JsonMap): JsonMap {
  return compact({
    ...spec,
    hostSelector: selectorOrUnset(spec['hostSelector']),
    image: imageToSpoke(spec['image']),
    dataTemplate: refToSpoke(spec['dataTemplate']),
  });
}

function machineStatusToHub(status: JsonMap): JsonMap {
  const layout = statusLayoutToHub(status);
  return compact({ ...layout, addresses: items(status['addresses'], (a) => a), renderedData: refToHub(status['renderedData']) });
}

function machineStatusToSpoke(status: JsonMap): JsonMap {
  const layout = statusLayoutToSpoke(status);
  return compact({ ...layout, addresses: list(status['addresses']), renderedData: refToSpoke(status['renderedData']) });
}

export const metal3Machine: KindRules = {
  kind: 'Metal3Machine',
  toHub: ({ spec, status, ...rest }) => compact({ ...rest, spec: via(spec, machineSpecToHub), status: via(status, machineStatusToHub) }),
  toSpoke: ({ spec, status, ...rest }) => compact({ ...rest, spec: via(spec, machineSpecToSpoke), status: via(status, machineStatusToSpoke) }),
  atomic: new Set(['spec.dataTemplate', 'status.renderedData']),
};

/** `nodeReuse` is copied as it is: both CRDs default it to false, so stored objects always have it (CV-10). */
export const metal3MachineTemplate: KindRules = {
  kind: 'Metal3MachineTemplate',
  toHub: ({ spec, ...rest }) => compact({ ...rest, spec: via(spec, (s) => templateSpec(s, machineSpecToHub, false)) }),
  toSpoke: ({ spec, ...rest }) => compact({ ...rest, spec: via(spec, (s) => templateSpec(s, machineSpecToSpoke, true)) }),
  atomic: new Set(['spec.template.spec.dataTemplate']),
};
