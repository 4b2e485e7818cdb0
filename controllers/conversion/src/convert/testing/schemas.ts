// Test support: the openAPI schemas the property tests generate from and validate against. v1beta1
// comes from our CRDs (crds/, which carry v1.13.2's link `name` and `fromBootMAC` too) and from
// CAPM3 v1.13.2's; v1beta2 from CAPM3 v1.13.2, read from the pinned upstream directory
// (METAL3_TS_UPSTREAM_CRDS, else ../shared/crds beside the repository).
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import process from 'node:process';
import { parse } from 'yaml';

export interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  required?: string[];
  enum?: unknown[];
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
}

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../..');
const upstreamRoot = resolve(process.env['METAL3_TS_UPSTREAM_CRDS'] ?? join(repoRoot, '..', 'shared', 'crds'));

export type Source = 'ours' | 'capm3-v1.13.2';

export const plurals: Record<string, string> = {
  Metal3Cluster: 'metal3clusters',
  Metal3ClusterTemplate: 'metal3clustertemplates',
  Metal3Machine: 'metal3machines',
  Metal3MachineTemplate: 'metal3machinetemplates',
  Metal3DataTemplate: 'metal3datatemplates',
  Metal3Data: 'metal3datas',
  Metal3DataClaim: 'metal3dataclaims',
  Metal3Remediation: 'metal3remediations',
  Metal3RemediationTemplate: 'metal3remediationtemplates',
};

const cache = new Map<string, Schema>();

/** The openAPIV3Schema of `kind` at `version` from `source`. */
export function schemaOf(kind: string, version: 'v1beta1' | 'v1beta2', source: Source): Schema {
  const key = `${kind}/${version}/${source}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const file = `infrastructure.cluster.x-k8s.io_${plurals[kind]}.yaml`;
  const path = source === 'ours' ? join(repoRoot, 'crds', file) : join(upstreamRoot, 'cluster-api-provider-metal3-v1.13.2', file);
  const crd = parse(readFileSync(path, 'utf8')) as { spec: { versions: { name: string; schema: { openAPIV3Schema: Schema } }[] } };
  const found = crd.spec.versions.find((v) => v.name === version);
  if (!found) throw new Error(`${path} has no version ${version}`);
  cache.set(key, found.schema.openAPIV3Schema);
  return found.schema.openAPIV3Schema;
}
