// The isolation cases, one per reference field of our kinds (issue 21). The suites assert that this
// table and referenceFields() (read from the generated types) name the same fields, so a reference
// field added to a CRD fails them until it gets a case here, a rule in the same-namespace policy and
// an entry in the controllers' table (REFERENCE_FIELDS of @metal3-ts/shared, checked by fields.test.ts).
import type { KubeObject } from '../envtest/http.ts';

export interface ReferenceCase {
  readonly kind: string;
  readonly plural: string;
  /** The field path, as referenceFields() writes it. */
  readonly path: string;
  /** A status field: written through the status subresource, checked there by the policy. */
  readonly status: boolean;
  /** What the controllers do with such a reference when admission let it through. */
  readonly controllers: string;
}

/** Fields with a namespace: refused by the policy, and a terminal error in the controllers. */
const namespaced: [kind: string, plural: string, path: string, controllers: string][] = [
  ['Metal3Machine', 'metal3machines', 'spec.userData', 'terminal InvalidConfiguration before any host is claimed'],
  ['Metal3Machine', 'metal3machines', 'spec.metaData', 'terminal InvalidConfiguration before any host is claimed'],
  ['Metal3Machine', 'metal3machines', 'spec.networkData', 'terminal InvalidConfiguration before any host is claimed'],
  ['Metal3Machine', 'metal3machines', 'spec.dataTemplate', 'terminal InvalidConfiguration; no claim is created'],
  ['Metal3Machine', 'metal3machines', 'status.userData', 'terminal InvalidConfiguration; never copied to a host'],
  ['Metal3Machine', 'metal3machines', 'status.metaData', 'terminal InvalidConfiguration; never copied to a host'],
  ['Metal3Machine', 'metal3machines', 'status.networkData', 'terminal InvalidConfiguration; never copied to a host'],
  ['Metal3Machine', 'metal3machines', 'status.renderedData', 'terminal InvalidConfiguration'],
  ['Metal3MachineTemplate', 'metal3machinetemplates', 'spec.template.spec.userData', 'copied into Metal3Machines, which fail as above'],
  ['Metal3MachineTemplate', 'metal3machinetemplates', 'spec.template.spec.metaData', 'copied into Metal3Machines, which fail as above'],
  ['Metal3MachineTemplate', 'metal3machinetemplates', 'spec.template.spec.networkData', 'copied into Metal3Machines, which fail as above'],
  ['Metal3MachineTemplate', 'metal3machinetemplates', 'spec.template.spec.dataTemplate', 'copied into Metal3Machines, which fail as above'],
  ['Metal3Data', 'metal3datas', 'spec.template', 'errorMessage and Warning AssociationInvalid; nothing rendered'],
  ['Metal3Data', 'metal3datas', 'spec.claim', 'errorMessage and Warning AssociationInvalid; nothing rendered'],
  ['Metal3Data', 'metal3datas', 'spec.metaData', 'errorMessage and Warning AssociationInvalid; nothing rendered'],
  ['Metal3Data', 'metal3datas', 'spec.networkData', 'errorMessage and Warning AssociationInvalid; nothing rendered'],
  ['Metal3DataClaim', 'metal3dataclaims', 'spec.template', 'errorMessage and Warning InvalidTemplateReference; no index'],
  ['Metal3DataClaim', 'metal3dataclaims', 'status.renderedData', 'errorMessage and Warning InvalidRenderedDataReference; never followed'],
];

/** Fields without one (TypedLocalObjectReference): nothing to refuse, the schema prunes a namespace. */
const POOL = 'resolved as IPClaim.spec.pool in the Metal3Data namespace';
const local: [kind: string, plural: string, path: string, controllers: string][] = [
  'spec.networkData.networks.ipv4[].fromPoolRef',
  'spec.networkData.networks.ipv4[].routes[].gateway.fromPoolRef',
  'spec.networkData.networks.ipv4DHCP[].routes[].gateway.fromPoolRef',
  'spec.networkData.networks.ipv6[].fromPoolRef',
  'spec.networkData.networks.ipv6[].routes[].gateway.fromPoolRef',
  'spec.networkData.networks.ipv6DHCP[].routes[].gateway.fromPoolRef',
  'spec.networkData.networks.ipv6SLAAC[].routes[].gateway.fromPoolRef',
].map((path) => ['Metal3DataTemplate', 'metal3datatemplates', path, POOL]);

const toCase = (status: boolean) => ([kind, plural, path, controllers]: [string, string, string, string]): ReferenceCase => ({
  kind,
  plural,
  path,
  status,
  controllers,
});
export const namespacedCases: readonly ReferenceCase[] = namespaced.map(([k, p, path, c]) => toCase(path.startsWith('status.'))([k, p, path, c]));
export const localCases: readonly ReferenceCase[] = local.map(toCase(false));
export const caseKey = (c: { kind: string; path: string }): string => `${c.kind} ${c.path}`;

const image = { url: 'http://172.22.0.1/images/node.img', checksum: 'http://172.22.0.1/images/node.img.sha256sum' };

/** A valid object of the case's kind named `name`, its reference (if any) naming `refNamespace`. */
export function objectFor(c: ReferenceCase, name: string, index: number, refNamespace?: string): KubeObject {
  const base: Record<string, KubeObject> = {
    Metal3Machine: { spec: { image } },
    Metal3MachineTemplate: { spec: { template: { spec: { image } } } },
    Metal3Data: { spec: { index, template: { name: 't' }, claim: { name: 'c' } } },
    Metal3DataClaim: { spec: { template: { name: 't' } } },
  };
  const object: KubeObject = {
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
    kind: c.kind,
    metadata: { name: c.kind === 'Metal3Data' ? `t-${index}` : name },
    ...structuredClone(base[c.kind] ?? {}),
  };
  if (refNamespace !== undefined) setAt(object, c.path, { ...(at(object, c.path) ?? { name: 'x' }), namespace: refNamespace });
  return object;
}

function at(object: KubeObject, path: string): Record<string, unknown> | undefined {
  let node: unknown = object;
  for (const key of path.split('.')) node = (node as Record<string, unknown> | undefined)?.[key];
  return node as Record<string, unknown> | undefined;
}

/** Sets `a.b.c` (no lists: namespaced references sit on plain objects). */
export function setAt(object: KubeObject, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = object as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
  node[keys[keys.length - 1] ?? ''] = value;
}
