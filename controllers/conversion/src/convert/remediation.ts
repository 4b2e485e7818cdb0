// Metal3Remediation and Metal3RemediationTemplate (AP-28 … AP-30; CV-20). `timeout` (a Go duration)
// becomes `timeoutSeconds` (whole seconds, fractions truncated, capped at int32) and back as Go would
// print it (`600` ⇒ `10m0s`); a timeout that is no duration, or under one second, becomes unset and
// stays in the annotation. `retryCount: 0` means unset in v1beta2.
import { formatSeconds, parseDuration } from './duration.ts';
import { compact, int, int32, type JsonMap, map, str, via } from './json.ts';
import type { KindRules } from './kind.ts';

const int32Max = 2147483647;

function strategyToHub(strategy: JsonMap): JsonMap {
  const { timeout, ...rest } = strategy;
  const seconds = str(timeout) === undefined ? undefined : parseDuration(str(timeout)!);
  const whole = seconds === undefined ? undefined : Math.min(Math.trunc(seconds), int32Max);
  return compact({ ...rest, type: rest['type'] === 'Reboot' ? 'Reboot' : undefined, timeoutSeconds: whole !== undefined && whole > 0 ? whole : undefined });
}

function strategyToSpoke(strategy: JsonMap): JsonMap {
  const { timeoutSeconds, ...rest } = strategy;
  const seconds = int(timeoutSeconds);
  return compact({ ...rest, timeout: seconds !== undefined && seconds !== 0 ? formatSeconds(seconds) : undefined });
}

/** v1beta2's phase is an enum (AP-29); any other v1beta1 phase stays in the annotation. */
const phases = new Set(['Running', 'Waiting', 'Deleting machine', 'Failed']);

const statusToHub = (status: JsonMap): JsonMap =>
  compact({ ...status, phase: phases.has(str(status['phase']) ?? '') ? status['phase'] : undefined, retryCount: int32(status['retryCount'], 1) });

const specWith = (convert: (s: JsonMap) => JsonMap) => (spec: JsonMap): JsonMap => compact({ ...spec, strategy: via(spec['strategy'], convert) });

export const metal3Remediation: KindRules = {
  kind: 'Metal3Remediation',
  toHub: ({ spec, status, ...rest }) => compact({ ...rest, spec: via(spec, specWith(strategyToHub)), status: via(status, statusToHub) }),
  toSpoke: ({ spec, ...rest }) => compact({ ...rest, spec: via(spec, specWith(strategyToSpoke)) }),
  atomic: new Set(),
};

function templateWith(convert: (s: JsonMap) => JsonMap) {
  return (spec: JsonMap): JsonMap => {
    const template = map(spec['template']);
    return template ? { ...spec, template: compact({ ...template, spec: via(template['spec'], specWith(convert)) }) } : spec;
  };
}

export const metal3RemediationTemplate: KindRules = {
  kind: 'Metal3RemediationTemplate',
  toHub: ({ spec, status, ...rest }) =>
    compact({ ...rest, spec: via(spec, templateWith(strategyToHub)), status: via(status, (s) => compact({ ...s, status: via(s['status'], statusToHub) })) }),
  // v1beta1 requires `status.status` once there is a status.
  toSpoke: ({ spec, status, ...rest }) =>
    compact({ ...rest, spec: via(spec, templateWith(strategyToSpoke)), status: via(status, (s) => ({ ...s, status: s['status'] ?? {} })) }),
  atomic: new Set(),
};
