// Test support (test/our-crds.test.ts, the e2e storage-migration test): seeded samples of every kind
// that our own CRDs accept as they are written, so what reads back can be compared byte for byte. A
// sample is the schema-generated one of the property tests (src/convert/testing) with three changes,
// each named where it is made:
// - the CEL rules of the version it is written at are met (the generator knows only the structural
//   schema; v1beta1's fixes are the property tests' own plus W2-7's one-of rule below, v1beta2's are below);
// - the CRD defaults of the version written are in it (`defaulted`), as the apiserver puts them in;
// - members whose value is `null` are left out: the apiserver drops them on every write (our schemas
//   mark no field nullable), whatever the version;
import type { KubeObject } from '@metal3-ts/generated';
import { convertObject, hubVersion, spokeVersion } from '../index.ts';
import { isMap, type Json, type JsonMap } from '../json.ts';
import { sample } from './property.ts';
import { type Schema, schemaOf } from './schemas.ts';

export type Version = 'v1beta1' | 'v1beta2';

const obj = (parent: JsonMap, key: string): JsonMap => {
  if (!isMap(parent[key])) parent[key] = {};
  return parent[key] as JsonMap;
};
const each = (value: Json | undefined, fix: (item: JsonMap) => void) => {
  if (Array.isArray(value)) { for (const item of value) if (isMap(item)) fix(item); }
};

function endpoint(spec: JsonMap): void {
  const e = obj(spec, 'controlPlaneEndpoint');
  if (!e['host']) e['host'] = 'api.example.com';
  if (typeof e['port'] !== 'number') e['port'] = 6443;
}

function image(spec: JsonMap): void {
  if (isMap(spec['customDeploy']) && spec['customDeploy']['method']) return;
  const i = obj(spec, 'image');
  if (!i['url']) i['url'] = 'http://img.example/ubuntu.qcow2';
  if (i['diskFormat'] !== 'live-iso' && !i['checksum']) i['checksum'] = 'abc123';
}

function strategy(spec: JsonMap): void {
  if (!isMap(spec['strategy'])) return;
  const s = spec['strategy'];
  s['type'] = 'Reboot';
  if (typeof s['retryLimit'] === 'number' && s['retryLimit'] < 1) s['retryLimit'] = 1;
  if (typeof s['timeoutSeconds'] === 'number' && s['timeoutSeconds'] < 100) s['timeoutSeconds'] = 100;
}

const template = (fix: (spec: JsonMap) => void) => (body: JsonMap) => fix(obj(obj(obj(body, 'spec'), 'template'), 'spec'));

/** W2-7's one-of rule, on both versions of our CRD: `interface` set exactly when `fromBootMAC` is not true. */
function bootMacOneOf(spec: JsonMap): void {
  each(isMap(spec['metaData']) ? spec['metaData']['fromHostInterfaces'] : undefined, (i) => {
    if (i['fromBootMAC'] === true) delete i['interface'];
    else if (!i['interface']) i['interface'] = 'eth0';
  });
}

/** What our v1beta1 CRDs' CEL rules demand beyond the property tests' fixes (testing/cel.ts, for upstream's schema too). */
const v1beta1Rules: Record<string, (body: JsonMap) => void> = {
  Metal3DataTemplate: (body) => bootMacOneOf(obj(body, 'spec')),
};

/** What our v1beta2 CRDs' CEL rules (W2-2…W2-10) demand of a new object. */
const v1beta2Rules: Record<string, (body: JsonMap) => void> = {
  Metal3Cluster: (body) => endpoint(obj(body, 'spec')),
  Metal3ClusterTemplate: template(endpoint),
  Metal3Machine: (body) => image(obj(body, 'spec')),
  Metal3MachineTemplate: template(image),
  Metal3DataTemplate: (body) => {
    const spec = obj(body, 'spec');
    bootMacOneOf(spec);
    const networks = isMap(spec['networkData']) && isMap(spec['networkData']['networks']) ? spec['networkData']['networks'] : {};
    for (const family of ['ipv4', 'ipv6']) {
      each(networks[family], (n) => {
        const ref = isMap(n['fromPoolRef']) ? n['fromPoolRef']['name'] : '';
        const annotation = isMap(n['fromPoolAnnotation']) ? n['fromPoolAnnotation']['object'] : '';
        if (!ref && !n['ipAddressFromIPPool'] && !annotation) n['ipAddressFromIPPool'] = 'pool-1';
      });
    }
  },
  Metal3DataClaim: (body) => {
    const t = obj(obj(body, 'spec'), 'template');
    if (!t['name']) t['name'] = 'template-1';
  },
  Metal3Remediation: (body) => strategy(obj(body, 'spec')),
  Metal3RemediationTemplate: template(strategy),
};

/** `value` without object members that are `null`, at every depth. */
function withoutNulls(value: Json): Json {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (!isMap(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null).map(([k, v]) => [k, withoutNulls(v)]));
}

type Defaulted = Schema & { default?: Json };

/** `value` with `schema`'s defaults filled in where a member is absent, at every depth, as the apiserver defaults. */
export function withDefaults(schema: Defaulted, value: Json, top = true): Json {
  if (Array.isArray(value)) return value.map((item) => withDefaults(schema.items ?? {}, item, false));
  if (!isMap(value)) return value;
  const out: JsonMap = { ...value };
  for (const [name, child] of Object.entries(schema.properties ?? {}) as [string, Defaulted][]) {
    if (top && ['apiVersion', 'kind', 'metadata'].includes(name)) continue;
    if (!(name in out) && child.default !== undefined) out[name] = structuredClone(child.default);
    if (name in out) out[name] = withDefaults(child, out[name]!, false);
  }
  const extra = schema.additionalProperties;
  if (typeof extra === 'object') {
    for (const [name, child] of Object.entries(out)) if (!schema.properties?.[name]) out[name] = withDefaults(extra, child, false);
  }
  return out;
}

const apiVersion = (v: Version) => (v === 'v1beta1' ? spokeVersion : hubVersion);
export const convert = (o: JsonMap, to: Version) => convertObject(o as unknown as KubeObject, apiVersion(to)) as unknown as JsonMap;

/** `object` (at `version`) with its version's CRD defaults, as the apiserver defaults a write. */
export function defaulted(object: JsonMap, version: Version): JsonMap {
  return withDefaults(schemaOf(String(object['kind']), version, 'ours'), object) as JsonMap;
}

/**
 * What a read at `to` of `object`, written at the other version, must return: the rules' conversion,
 * nothing added. At v1beta2 the apiserver fills in the storage version's CRD defaults when it reads
 * from etcd; the conversion's hub has them already, so that adds nothing either.
 */
export const readAt = (object: JsonMap, to: Version): JsonMap => convert(object, to);

/** The seeded sample of `kind` at `version` our CRDs accept as written, named `name` in `namespace`. */
export function apiSample(kind: string, version: Version, seed: number, name: string, namespace: string): JsonMap {
  const s = withoutNulls(sample(kind, version, 'ours', seed)) as JsonMap;
  const metadata = { ...(s['metadata'] as JsonMap), name, namespace };
  (version === 'v1beta2' ? v1beta2Rules : v1beta1Rules)[kind]?.(s);
  if (kind === 'Metal3Data') {
    // Its name is `<template name>-<index>` (D-2, a CEL rule on both versions): the template is named
    // `name` (the generated words make no valid object name), the object as that rule asks.
    const spec = obj(s, 'spec');
    obj(spec, 'template')['name'] = name;
    metadata['name'] = `${name}-${typeof spec['index'] === 'number' ? spec['index'] : 0}`;
  }
  return defaulted({ ...s, metadata }, version);
}
