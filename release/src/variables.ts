// The clusterctl variables of infrastructure-components.yaml: the one list of what a user may set
// (clusterctl substitutes them from the environment or clusterctl.yaml at `clusterctl init`). Every
// `${NAME...}` in the rendered components must be declared here, with the default it carries there.
// Each default is the controller flag's own (a test checks it), so an unset variable changes nothing;
// CAPM3's two keep CAPM3's names; the README's Install section documents each (tested too). Images
// are not variables: clusterctl's `images:` setting overrides their registry and tag. --watch-filter
// has none: its default is empty, and clusterctl takes an empty default for none at all.
import type { ControllerName } from './layout.ts';

export interface Variable {
  readonly name: string;
  /** The controller flag it sets. */
  readonly flag: string;
  /** The controllers whose Deployment gets the flag; undefined: every one. */
  readonly controllers?: readonly ControllerName[];
  /** The default written in the components (`${NAME:=default}`): unset or empty gives this. */
  readonly default: string;
  readonly help: string;
}

export const VARIABLES: readonly Variable[] = [
  { name: 'METAL3_TS_LOG_LEVEL', flag: 'log-level', default: 'info', help: 'Lowest level logged: debug, info, warn or error' },
  {
    name: 'METAL3_TS_KUBE_API_QPS',
    flag: 'kube-api-qps',
    default: '20',
    help: "Queries per second to the apiserver per controller (CAPM3's default); <= 0 turns the limit off",
  },
  { name: 'METAL3_TS_KUBE_API_BURST', flag: 'kube-api-burst', default: '30', help: 'Burst of queries to the apiserver per controller' },
  // CAPM3's (research CC-11), so an existing clusterctl.yaml keeps working.
  {
    name: 'CAPM3_FAST_TRACK',
    flag: 'fast-track',
    controllers: ['machine'],
    default: 'false',
    help: 'Keep a released host powered on for fast re-provisioning ("true")',
  },
  {
    name: 'ENABLE_BMH_NAME_BASED_PREALLOCATION',
    flag: 'enableBMHNameBasedPreallocation',
    controllers: ['data'],
    default: 'false',
    help: 'Name IPClaims <host>-<pool> so IPPool preAllocations follow the host',
  },
];

export function declared(name: string): Variable | undefined {
  return VARIABLES.find((v) => v.name === name);
}
