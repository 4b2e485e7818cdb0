// Metal3DataTemplate `spec.networkData` (AP-20 … AP-23; CV-12 … CV-14, CV-16, CV-17). v1beta2 makes
// every list a list-map and every "" unset; bond parameters turn from a map into a list sorted by name
// (an option without a value stays out of v1beta1's map).
// Pool references read back to v1beta1 with the defaults v1beta2's CRD would have written
// (kind IPPool, apiGroup ipam.metal3.io) where v1beta2 leaves them unset.
import { compact, every, filled, isMap, items, type Json, type JsonMap, list, map, str, via } from './json.ts';
import { firstOfEqual, lastPerKey } from './unique.ts';

type Way = 'toHub' | 'toSpoke';

function mac(m: Json | undefined, way: Way): Json | undefined {
  return via(m, (x) => way === 'toHub' ? compact({ ...x, string: filled(x['string']), fromHostInterface: filled(x['fromHostInterface']) }) : x);
}

function parametersToHub(parameters: Json | undefined): Json[] | undefined {
  const m = map(parameters);
  if (!m) return undefined;
  const out = Object.keys(m).filter((name) => name !== '').sort().map((name) => ({ name, value: m[name] as Json }));
  return out.length > 0 ? out : undefined;
}

function parametersToSpoke(parameters: Json | undefined): JsonMap | undefined {
  const l = list(parameters);
  if (!l) return undefined;
  const out: JsonMap = {};
  // An option without a value has no v1beta1 form: `name: null` is dropped by the apiserver (v1beta1's
  // option values are not nullable), so it is left out here and rides the annotation (lossless.ts).
  for (const p of l) if (isMap(p) && typeof p['name'] === 'string' && p['value'] !== undefined && p['value'] !== null) out[p['name']] = p['value'];
  return out;
}

function link(l: JsonMap, way: Way): JsonMap {
  return compact({ ...l, name: way === 'toHub' ? filled(l['name']) : l['name'], macAddress: mac(l['macAddress'], way) });
}

function bond(b: JsonMap, way: Way): JsonMap {
  return compact({
    ...link(b, way),
    parameters: way === 'toHub' ? parametersToHub(b['parameters']) : parametersToSpoke(b['parameters']),
    bondLinks: way === 'toHub' ? firstOfEqual(list(b['bondLinks'])?.filter((x) => x !== '')) : b['bondLinks'],
  });
}

export function poolRef(ref: Json | undefined, way: Way): Json | undefined {
  const r = map(ref);
  if (!r) return undefined;
  // A reference without a name points nowhere; v1beta2 requires the name, so it stays in the annotation.
  if (way === 'toHub') return filled(r['name']) ? compact({ ...r, kind: filled(r['kind']), apiGroup: filled(r['apiGroup']) }) : undefined;
  return { ...r, name: str(r['name']) ?? '', kind: str(r['kind']) ?? 'IPPool', apiGroup: str(r['apiGroup']) ?? 'ipam.metal3.io' };
}

function services(s: Json | undefined, way: Way): Json | undefined {
  if (way === 'toSpoke') return s;
  return via(s, (x) => compact({ ...x, dns: firstOfEqual(items(x['dns'], (d) => d)), dnsFromIPPool: filled(x['dnsFromIPPool']) }));
}

function route(r: JsonMap, way: Way): JsonMap {
  const gateway = via(
    r['gateway'],
    (g) => compact({ ...g, fromIPPool: way === 'toHub' ? filled(g['fromIPPool']) : g['fromIPPool'], fromPoolRef: poolRef(g['fromPoolRef'], way) }),
  );
  const routeServices = services(r['services'], way);
  return compact({ ...r, gateway, services: way === 'toHub' && isMap(routeServices) && Object.keys(routeServices).length === 0 ? undefined : routeServices });
}

function network(n: JsonMap, way: Way, ipRequired: boolean): JsonMap {
  const ip = n['ipAddressFromIPPool'];
  return compact({
    ...n,
    ipAddressFromIPPool: way === 'toHub' ? filled(ip) : (ip ?? (ipRequired ? '' : undefined)),
    fromPoolRef: poolRef(n['fromPoolRef'], way),
    routes: lists(n['routes'], way, 'network', (r) => route(r, way)),
  });
}

/** A list each way; to the hub, one item per `key` (unique.ts). */
function lists(value: Json | undefined, way: Way, key: string, each: (item: JsonMap) => Json): Json[] | undefined {
  return way === 'toHub' ? lastPerKey(items(value, each), [key]) : every(value, each);
}

export function networkDataRules(data: JsonMap, way: Way): JsonMap {
  const links = via(data['links'], (l) =>
    compact({
      ...l,
      ethernets: lists(l['ethernets'], way, 'id', (x) => link(x, way)),
      vlans: lists(l['vlans'], way, 'vlanID', (x) => link(x, way)),
      bonds: lists(l['bonds'], way, 'id', (x) => bond(x, way)),
    }));
  const networks = via(data['networks'], (n) => {
    const out: JsonMap = { ...n };
    for (const family of ['ipv4', 'ipv6', 'ipv4DHCP', 'ipv6DHCP', 'ipv6SLAAC']) {
      const converted = lists(n[family], way, 'id', (x) => network(x, way, family === 'ipv6'));
      if (converted === undefined) delete out[family];
      else out[family] = converted;
    }
    return out;
  });
  return compact({ ...data, links, networks, services: services(data['services'], way) });
}
