// Metal3DataTemplate (AP-16 … AP-24; CV-11, CV-15, CV-21). `templateReference` is v1beta1-only and
// lives in the annotation on v1beta2 (lossless.ts), as do our v1beta1 `status.dataNames`. The four
// `…FromIPPool` metadata lists are renamed `…FromPool`; `status.indexes` turns from a map claim → index
// into a list sorted by index.
import { compact, every, filled, int32, isMap, items, type Json, type JsonMap, list, map, str, via } from './json.ts';
import type { KindRules } from './kind.ts';
import { networkDataRules } from './network.ts';
import { lastPerKey } from './unique.ts';

type Way = 'toHub' | 'toSpoke';

const renamed: readonly [spoke: string, hub: string][] = [
  ['ipAddressesFromIPPool', 'ipAddressesFromPool'],
  ['prefixesFromIPPool', 'prefixesFromPool'],
  ['gatewaysFromIPPool', 'gatewaysFromPool'],
  ['dnsServersFromIPPool', 'dnsServersFromPool'],
];

const metaLists = ['strings', 'objectNames', 'indexes', 'namespaces', 'fromLabels', 'fromAnnotations', 'fromHostInterfaces'];

function fromPool(p: JsonMap, way: Way): JsonMap {
  if (way === 'toHub') return compact({ ...p, kind: filled(p['kind']), apiGroup: filled(p['apiGroup']) });
  return { ...p, kind: str(p['kind']) ?? 'IPPool', apiGroup: str(p['apiGroup']) ?? 'ipam.metal3.io' };
}

function metaItem(name: string, item: JsonMap, way: Way): JsonMap {
  if (way === 'toSpoke') return item;
  if (name === 'indexes') return compact({ ...item, prefix: filled(item['prefix']), suffix: filled(item['suffix']) });
  if (name === 'fromHostInterfaces') return compact({ ...item, interface: filled(item['interface']) });
  return item;
}

export function metaDataRules(meta: JsonMap, way: Way): JsonMap {
  const out: { [key: string]: Json | undefined } = { ...meta };
  // To the hub, every metaData list is a list-map by `key`: one item per key (unique.ts).
  const each = way === 'toHub' ? (value: Json | undefined, f: (item: JsonMap) => Json) => lastPerKey(items(value, f), ['key']) : every;
  for (const name of metaLists) out[name] = each(meta[name], (item) => metaItem(name, item, way));
  for (const [spoke, hub] of renamed) {
    const [from, to] = way === 'toHub' ? [spoke, hub] : [hub, spoke];
    delete out[from];
    out[to] = each(meta[from], (item) => fromPool(item, way));
  }
  return compact(out);
}

function indexesToHub(indexes: Json | undefined): Json[] | undefined {
  const m = map(indexes);
  if (!m) return undefined;
  const out = Object.entries(m).flatMap(([name, index]) => (int32(index, 0) === undefined || name === '' ? [] : [{ name, index: index as number }]));
  out.sort((a, b) => a.index - b.index || (a.name < b.name ? -1 : 1));
  return out.length > 0 ? out : undefined;
}

function indexesToSpoke(indexes: Json | undefined): JsonMap | undefined {
  const l = list(indexes);
  if (!l) return undefined;
  const out: JsonMap = {};
  for (const e of l) if (isMap(e) && typeof e['name'] === 'string' && typeof e['index'] === 'number') out[e['name']] = e['index'];
  return out;
}

function specRules(spec: JsonMap, way: Way): JsonMap {
  const { templateReference: _v1beta1Only, ...rest } = spec;
  const base = way === 'toHub' ? rest : spec;
  return compact({
    ...base,
    metaData: via(spec['metaData'], (m) => metaDataRules(m, way)),
    networkData: via(spec['networkData'], (n) => networkDataRules(n, way)),
  });
}

function statusRules(status: JsonMap, way: Way): JsonMap {
  if (way === 'toSpoke') return compact({ ...status, indexes: indexesToSpoke(status['indexes']) });
  const { dataNames: _ours, ...rest } = status;
  return compact({ ...rest, indexes: indexesToHub(status['indexes']) });
}

export const metal3DataTemplate: KindRules = {
  kind: 'Metal3DataTemplate',
  toHub: ({ spec, status, ...rest }) =>
    compact({ ...rest, spec: via(spec, (s) => specRules(s, 'toHub')), status: via(status, (s) => statusRules(s, 'toHub')) }),
  toSpoke: ({ spec, status, ...rest }) =>
    compact({ ...rest, spec: via(spec, (s) => specRules(s, 'toSpoke')), status: via(status, (s) => statusRules(s, 'toSpoke')) }),
  atomic: new Set(),
};
