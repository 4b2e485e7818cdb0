// Field rules shared by several kinds: object references, the control-plane endpoint, failure domains
// and the status layout of Metal3Cluster and Metal3Machine (CV-6, CV-7, CV-8, AP-12, AP-25, AP-26).
// Each pair is `xToHub` (v1beta1 → v1beta2) and `xToSpoke` (v1beta2 → v1beta1).
import { bool, compact, filled, int32, isMap, items, type Json, type JsonMap, list, map, nonEmpty, str } from './json.ts';

/** corev1.ObjectReference → Metal3ObjectRef {name, namespace}; the rest is v1beta1-only (CV-4). */
export function refToHub(ref: Json | undefined): JsonMap | undefined {
  const r = map(ref);
  return r && nonEmpty({ name: filled(r['name']), namespace: filled(r['namespace']) });
}

/** Metal3ObjectRef → ObjectReference; `orEmpty` for references v1beta1 requires (CV-18). */
export function refToSpoke(ref: Json | undefined, orEmpty = false): JsonMap | undefined {
  const r = map(ref);
  // An empty v1beta2 reference reads as none: the v1beta1 rules would drop it on the way back.
  return nonEmpty({ name: str(r?.['name']), namespace: str(r?.['namespace']) }) ?? (orEmpty ? {} : undefined);
}

/** APIEndpoint: both fields required in v1beta1; optional, non-empty, port 1–65535 in v1beta2 (AP-2, CV-8). */
export function endpointToHub(endpoint: Json | undefined): JsonMap | undefined {
  const e = map(endpoint);
  return e && nonEmpty({ host: filled(e['host']), port: int32(e['port'], 1, 65535) });
}

export function endpointToSpoke(endpoint: Json | undefined): JsonMap | undefined {
  const e = map(endpoint);
  return e && { host: str(e['host']) ?? '', port: int32(e['port']) ?? 0 };
}

/** Failure domains: map by name → list sorted by name; only `controlPlane: true` is kept (CV-6). */
export function failureDomainsToHub(domains: Json | undefined): Json[] | undefined {
  const m = map(domains);
  if (!m) return undefined;
  const names = Object.keys(m).filter((name) => name !== '').sort();
  const out = names.map((name) => {
    const d = map(m[name]) ?? {};
    return compact({ name, controlPlane: d['controlPlane'] === true ? true : undefined, attributes: map(d['attributes']) });
  });
  return out.length > 0 ? out : undefined;
}

export function failureDomainsToSpoke(domains: Json | undefined): JsonMap | undefined {
  const l = list(domains);
  if (!l) return undefined;
  const out: JsonMap = {};
  for (const d of l) {
    if (!isMap(d) || typeof d['name'] !== 'string') continue;
    out[d['name']] = compact({ controlPlane: d['controlPlane'] === true ? true : undefined, attributes: map(d['attributes']) });
  }
  return out;
}

/**
 * Status layout (CV-7): v1beta1 `conditions` and `failureReason/Message` move under
 * `deprecated.v1beta1`, `v1beta2.conditions` become `conditions`, `ready: true` becomes
 * `initialization.provisioned: true` (a false `ready` leaves it unset, CV-3a). Conditions of one
 * generation are never turned into the other's.
 */
export function statusLayoutToHub(status: JsonMap): JsonMap {
  const { conditions, failureReason, failureMessage, ready, v1beta2, phase: _phase, ...rest } = status;
  const deprecated = nonEmpty({ conditions: list(conditions), failureReason: str(failureReason), failureMessage: str(failureMessage) });
  return compact({
    ...rest,
    conditions: items(map(v1beta2)?.['conditions'], (c) => c),
    deprecated: deprecated && { v1beta1: deprecated },
    initialization: ready === true ? { provisioned: true } : undefined,
  });
}

export function statusLayoutToSpoke(status: JsonMap): JsonMap {
  const { conditions, deprecated, initialization, ...rest } = status;
  const current = list(conditions);
  const old = map(map(deprecated)?.['v1beta1']) ?? {};
  return compact({
    ...rest,
    ready: bool(map(initialization)?.['provisioned']) ?? false,
    conditions: list(old['conditions']),
    failureReason: str(old['failureReason']),
    failureMessage: str(old['failureMessage']),
    v1beta2: current && { conditions: current },
  });
}
