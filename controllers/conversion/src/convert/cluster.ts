// Metal3Cluster and Metal3ClusterTemplate (AP-1 … AP-7; CV-5, CV-6, CV-7, CV-8).
// Deviation from upstream CV-5: a v1beta1 `noCloudProvider` without `cloudProviderEnabled` keeps its
// intent (`noCloudProvider: false` ⇒ `cloudProviderEnabled: true`) instead of falling to the v1beta2
// default false (S-2); when both are set, `cloudProviderEnabled` wins as it does upstream.
import { endpointToHub, endpointToSpoke, failureDomainsToHub, failureDomainsToSpoke, statusLayoutToHub, statusLayoutToSpoke } from './fields.ts';
import { bool, compact, type JsonMap, map, via } from './json.ts';
import type { KindRules } from './kind.ts';

export function clusterSpecToHub(spec: JsonMap): JsonMap {
  const { noCloudProvider, cloudProviderEnabled, controlPlaneEndpoint, failureDomains, ...rest } = spec;
  const noCloud = bool(noCloudProvider);
  return compact({
    ...rest,
    cloudProviderEnabled: bool(cloudProviderEnabled) ?? (noCloud === undefined ? undefined : !noCloud),
    controlPlaneEndpoint: endpointToHub(controlPlaneEndpoint),
    failureDomains: failureDomainsToHub(failureDomains),
  });
}

export function clusterSpecToSpoke(spec: JsonMap): JsonMap {
  const { cloudProviderEnabled, controlPlaneEndpoint, failureDomains, ...rest } = spec;
  const enabled = bool(cloudProviderEnabled);
  return compact({
    ...rest,
    cloudProviderEnabled: enabled,
    noCloudProvider: enabled === undefined ? undefined : !enabled,
    controlPlaneEndpoint: endpointToSpoke(controlPlaneEndpoint),
    failureDomains: failureDomainsToSpoke(failureDomains),
  });
}

function clusterStatusToHub(status: JsonMap): JsonMap {
  const layout = statusLayoutToHub(status);
  return compact({ ...layout, failureDomains: failureDomainsToHub(status['failureDomains']) });
}

function clusterStatusToSpoke(status: JsonMap): JsonMap {
  const layout = statusLayoutToSpoke(status);
  return compact({ ...layout, failureDomains: failureDomainsToSpoke(status['failureDomains']) });
}

export const metal3Cluster: KindRules = {
  kind: 'Metal3Cluster',
  toHub: ({ spec, status, ...rest }) => compact({ ...rest, spec: via(spec, clusterSpecToHub), status: via(status, clusterStatusToHub) }),
  toSpoke: ({ spec, status, ...rest }) => compact({ ...rest, spec: via(spec, clusterSpecToSpoke), status: via(status, clusterStatusToSpoke) }),
  atomic: new Set(),
};

/** `spec.template.metadata` is v1beta2-only (AP-7): it lives in the annotation on v1beta1 (CV-3b). */
export const metal3ClusterTemplate: KindRules = {
  kind: 'Metal3ClusterTemplate',
  toHub: ({ spec, ...rest }) => compact({ ...rest, spec: via(spec, (s) => templateSpec(s, clusterSpecToHub, false)) }),
  toSpoke: ({ spec, ...rest }) => compact({ ...rest, spec: via(spec, (s) => templateSpec(s, clusterSpecToSpoke, true)) }),
  atomic: new Set(),
};

/** `spec.template.spec` through `convert`; `dropMetadata` on the way to v1beta1. */
export function templateSpec(spec: JsonMap, convert: (inner: JsonMap) => JsonMap, dropMetadata: boolean): JsonMap {
  const template = map(spec['template']);
  if (!template) return spec;
  const { spec: inner, metadata, ...rest } = template;
  return {
    ...spec,
    template: compact({ ...rest, metadata: dropMetadata ? undefined : metadata, spec: via(inner, convert) }),
  };
}
