// A small Metal3Cluster converter for the webhook's real-apiserver tests, written here so the server
// is tested on its own: the real rules (src/convert/) have their own round-trip tests. It maps the
// fields these tests write (controlPlaneEndpoint, failureDomains map ⇄ list, cloudProviderEnabled,
// ready ⇄ initialization.provisioned) and refuses one host name, naming the field, so a failing
// conversion can be shown through the apiserver.
import { ConversionFailure, type Converter, type ConvertibleObject } from '../src/converter.ts';

export const V1BETA1 = 'infrastructure.cluster.x-k8s.io/v1beta1';
export const V1BETA2 = 'infrastructure.cluster.x-k8s.io/v1beta2';
export const REFUSED_HOST = 'refused.example';

type Domains1 = Record<
  string,
  { controlPlane?: boolean; attributes?: Record<string, string> }
>;
type Domains2 = {
  name: string;
  controlPlane?: boolean;
  attributes?: Record<string, string>;
}[];
type Spec = Record<string, unknown> & {
  controlPlaneEndpoint?: { host?: string; port?: number };
  failureDomains?: unknown;
};
type Status = Record<string, unknown>;

const toList = (m: Domains1 | undefined): Domains2 | undefined =>
  m && Object.keys(m).length > 0 ? Object.keys(m).sort().map((name) => ({ name, ...m[name] })) : undefined;
const toMap = (l: Domains2 | undefined): Domains1 | undefined => l && Object.fromEntries(l.map(({ name, ...rest }) => [name, rest]));
const defined = <T extends Record<string, unknown>>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

export const metal3ClusterConverter: Converter = (object, to) => {
  if (object.kind !== 'Metal3Cluster') {
    throw new ConversionFailure(
      `the test converter knows Metal3Cluster only, not ${object.kind}`,
      'kind',
    );
  }
  const spec = (object['spec'] ?? {}) as Spec;
  if (spec.controlPlaneEndpoint?.host === REFUSED_HOST) {
    throw new ConversionFailure(
      `host ${REFUSED_HOST} is refused by the test converter`,
      'spec.controlPlaneEndpoint.host',
    );
  }
  const status = object['status'] as Status | undefined;
  const out: ConvertibleObject = { ...object, apiVersion: to };
  if (to === V1BETA2) {
    out['spec'] = defined({
      ...spec,
      failureDomains: toList(spec.failureDomains as Domains1 | undefined),
    });
    if (status) {
      const { ready, ...rest } = status;
      out['status'] = defined({
        ...rest,
        failureDomains: toList(rest['failureDomains'] as Domains1 | undefined),
        initialization: ready === true ? { provisioned: true } : undefined,
      });
    }
  } else {
    out['spec'] = defined({
      ...spec,
      failureDomains: toMap(spec.failureDomains as Domains2 | undefined),
    });
    if (status) {
      const { initialization, ...rest } = status as Status & {
        initialization?: { provisioned?: boolean };
      };
      out['status'] = defined({
        ...rest,
        failureDomains: toMap(rest['failureDomains'] as Domains2 | undefined),
        ready: initialization?.provisioned ?? false,
      });
    }
  }
  return out;
};
