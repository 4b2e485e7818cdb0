// Test support: what the v1beta1 CRDs' CEL rules demand of a new object, applied to a generated sample
// (the generator knows only the structural schema). Only rules a real v1beta1 object must meet on
// create are honoured; transition rules (oldSelf) have nothing to check on a fresh object.
import { isMap, type JsonMap } from '../json.ts';
import type { Random } from './random.ts';

type Fix = (body: JsonMap, rng: Random) => void;

const obj = (parent: JsonMap, key: string): JsonMap => {
  if (!isMap(parent[key])) parent[key] = {};
  return parent[key] as JsonMap;
};

function clusterSpec(spec: JsonMap, rng: Random): void {
  const endpoint = obj(spec, 'controlPlaneEndpoint');
  if (!endpoint['host']) endpoint['host'] = rng.pick(['10.0.0.100', 'api.example.com']);
  if (typeof endpoint['port'] !== 'number' || endpoint['port'] === 0) endpoint['port'] = 6443;
  if (typeof spec['cloudProviderEnabled'] === 'boolean' && spec['noCloudProvider'] === spec['cloudProviderEnabled']) {
    spec['noCloudProvider'] = !spec['cloudProviderEnabled'];
  }
}

function machineSpec(spec: JsonMap, rng: Random): void {
  const custom = isMap(spec['customDeploy']) && spec['customDeploy']['method'] !== '';
  if (custom) return;
  const image = obj(spec, 'image');
  if (!image['url']) image['url'] = 'http://img.example/ubuntu.qcow2';
  if (image['format'] !== 'live-iso' && !image['checksum']) image['checksum'] = rng.pick(['abc123', 'http://img.example/ubuntu.qcow2.sha256']);
}

function networks(spec: JsonMap): void {
  const nets = isMap(spec['networkData']) && isMap(spec['networkData']['networks']) ? spec['networkData']['networks'] : undefined;
  for (const family of ['ipv4', 'ipv6']) {
    const list = nets?.[family];
    if (!Array.isArray(list)) continue;
    for (const n of list) {
      if (!isMap(n)) continue;
      const ref = isMap(n['fromPoolRef']) ? n['fromPoolRef'] : undefined;
      if (!(ref && ref['name']) && !n['ipAddressFromIPPool'] && !('fromPoolAnnotation' in n)) n['ipAddressFromIPPool'] = 'pool-1';
    }
  }
}

function strategy(spec: JsonMap): void {
  const s = obj(spec, 'strategy');
  s['type'] = 'Reboot';
  if (typeof s['retryLimit'] !== 'number' || s['retryLimit'] < 1) s['retryLimit'] = 1;
}

const template = (fix: (spec: JsonMap, rng: Random) => void): Fix => (body, rng) => fix(obj(obj(obj(body, 'spec'), 'template'), 'spec'), rng);

export const v1beta1Rules: Record<string, Fix> = {
  Metal3Cluster: (body, rng) => clusterSpec(obj(body, 'spec'), rng),
  Metal3ClusterTemplate: template(clusterSpec),
  Metal3Machine: (body, rng) => machineSpec(obj(body, 'spec'), rng),
  Metal3MachineTemplate: template(machineSpec),
  Metal3DataTemplate: (body) => networks(obj(body, 'spec')),
  Metal3Data: (body) => {
    const spec = obj(body, 'spec');
    if (typeof spec['index'] === 'number' && spec['index'] < 0) spec['index'] = 0;
  },
  Metal3DataClaim: (body) => {
    const t = obj(obj(body, 'spec'), 'template');
    if (!t['name']) t['name'] = 'template-1';
  },
  Metal3Remediation: (body) => strategy(obj(body, 'spec')),
  Metal3RemediationTemplate: template((spec) => {
    strategy(spec);
    if (!obj(spec, 'strategy')['timeout']) obj(spec, 'strategy')['timeout'] = '600s';
  }),
};

/** Optional fields the rules above put in every v1beta1 sample (so never absent there). */
export const forcedByRules = new Set([
  '.spec.controlPlaneEndpoint',
  '.spec.template.spec.controlPlaneEndpoint',
  '.spec.template.name',
  '.spec.strategy',
  '.spec.strategy.retryLimit',
  '.spec.strategy.type',
  '.spec.template.spec.strategy',
  '.spec.template.spec.strategy.retryLimit',
  '.spec.template.spec.strategy.timeout',
  '.spec.template.spec.strategy.type',
]);
