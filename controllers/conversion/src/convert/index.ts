// The conversion rules of every CAPM3 kind between infrastructure.cluster.x-k8s.io v1beta1 and v1beta2
// (the hub), lossless both ways (docs/compatibility.md, "v1beta2 conversion"). Pure: plain JSON in,
// plain JSON out, no I/O; the webhook server (src/server*) is the thin layer around `convertObject`.
import type { KubeObject } from '@metal3-ts/generated';
import { metal3Cluster, metal3ClusterTemplate } from './cluster.ts';
import { metal3Data, metal3DataClaim } from './data.ts';
import { metal3DataTemplate } from './datatemplate.ts';
import { applyHubDefaults } from './defaults.ts';
import { ConversionError } from './errors.ts';
import { isMap, type JsonMap } from './json.ts';
import { hubVersion, type KindRules, spokeVersion } from './kind.ts';
import { convertLossless } from './lossless.ts';
import { metal3Machine, metal3MachineTemplate } from './machine.ts';
import { metal3Remediation, metal3RemediationTemplate } from './remediation.ts';

export { applyHubDefaults, hubDefaults } from './defaults.ts';
export { ConversionError } from './errors.ts';
export { hubDataAnnotation, spokeDataAnnotation } from './lossless.ts';
export { hubVersion, type KindRules, spokeVersion } from './kind.ts';
export {
  metal3Cluster,
  metal3ClusterTemplate,
  metal3Data,
  metal3DataClaim,
  metal3DataTemplate,
  metal3Machine,
  metal3MachineTemplate,
  metal3Remediation,
  metal3RemediationTemplate,
};

/**
 * The rules `convertObject` uses: each kind's field rules, its hubs with v1beta2's CRD defaults in place
 * (defaults.ts says why: the hub a conversion makes is the hub the apiserver stores and reads back).
 */
export const kinds: ReadonlyMap<string, KindRules> = new Map(
  [
    metal3Cluster,
    metal3ClusterTemplate,
    metal3Machine,
    metal3MachineTemplate,
    metal3DataTemplate,
    metal3Data,
    metal3DataClaim,
    metal3Remediation,
    metal3RemediationTemplate,
  ]
    .map((rules) => [rules.kind, { ...rules, toHub: (body: JsonMap) => applyHubDefaults(rules.kind, rules.toHub(body)) }]),
);

const versions = [spokeVersion, hubVersion];

/**
 * `object` at `desiredAPIVersion`. An object already there comes back unchanged. `object` is not
 * modified; the result may share nested values with it (copy before mutating either). Throws a
 * ConversionError for input no rule can read: not an object, an unknown kind or version, a `spec`
 * or `status` that is not an object.
 */
export function convertObject(object: KubeObject, desiredAPIVersion: string): KubeObject {
  const o: unknown = object;
  if (!isMap(o)) throw new ConversionError('', '', 'the object to convert is not a JSON object');
  const kind = typeof o['kind'] === 'string' ? o['kind'] : '';
  const rules = kinds.get(kind);
  if (!rules) throw new ConversionError(kind, 'kind', `is not one of ${[...kinds.keys()].join(', ')}`);
  const from = o['apiVersion'];
  if (typeof from !== 'string' || !versions.includes(from)) {
    throw new ConversionError(kind, 'apiVersion', `${String(from)} is not one of ${versions.join(', ')}`);
  }
  if (!versions.includes(desiredAPIVersion)) throw new ConversionError(kind, 'desiredAPIVersion', `${desiredAPIVersion} is not one of ${versions.join(', ')}`);
  if (from === desiredAPIVersion) return object;
  for (const field of ['spec', 'status', 'metadata']) {
    if (o[field] !== undefined && !isMap(o[field])) throw new ConversionError(kind, field, 'must be an object');
  }
  const out: JsonMap = convertLossless(rules, o, desiredAPIVersion === hubVersion ? 'toHub' : 'toSpoke', desiredAPIVersion);
  return out as unknown as KubeObject;
}
