// Metal3Data and Metal3DataClaim (AP-25 … AP-27; CV-18, CV-19). References lose kind, apiVersion, uid,
// resourceVersion and fieldPath on the way to v1beta2 (they come back from the annotation); v1beta1
// requires `claim` and `template`, so an unset reference reads back as `{}`. `index` 0 is a real index.
import { refToHub, refToSpoke } from './fields.ts';
import { compact, filled, int32, type JsonMap, via } from './json.ts';
import type { KindRules } from './kind.ts';

function dataSpecToHub(spec: JsonMap): JsonMap {
  const { templateReference: _v1beta1Only, ...rest } = spec;
  return compact({ ...rest, index: int32(spec['index'], 0), claim: refToHub(spec['claim']), template: refToHub(spec['template']) });
}

function dataSpecToSpoke(spec: JsonMap): JsonMap {
  return compact({ ...spec, claim: refToSpoke(spec['claim'], true), template: refToSpoke(spec['template'], true) });
}

const errorToHub = (status: JsonMap): JsonMap => compact({ ...status, errorMessage: filled(status['errorMessage']) });

export const metal3Data: KindRules = {
  kind: 'Metal3Data',
  toHub: ({ spec, status, ...rest }) => compact({ ...rest, spec: via(spec, dataSpecToHub), status: via(status, errorToHub) }),
  toSpoke: ({ spec, ...rest }) => compact({ ...rest, spec: via(spec, dataSpecToSpoke) }),
  atomic: new Set(['spec.claim', 'spec.template']),
};

export const metal3DataClaim: KindRules = {
  kind: 'Metal3DataClaim',
  toHub: ({ spec, status, ...rest }) =>
    compact({
      ...rest,
      spec: via(spec, (s) => compact({ ...s, template: refToHub(s['template']) })),
      status: via(status, (s) => compact({ ...errorToHub(s), renderedData: refToHub(s['renderedData']) })),
    }),
  toSpoke: ({ spec, status, ...rest }) =>
    compact({
      ...rest,
      spec: via(spec, (s) => compact({ ...s, template: refToSpoke(s['template'], true) })),
      status: via(status, (s) => compact({ ...s, renderedData: refToSpoke(s['renderedData']) })),
    }),
  atomic: new Set(['spec.template', 'status.renderedData']),
};
