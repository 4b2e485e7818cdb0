// The clusterctl variables of infrastructure-components.yaml: the one list of what a user may set
// (clusterctl substitutes them from the environment or clusterctl.yaml at `clusterctl init`). Every
// `${NAME...}` in the rendered components must be declared here, with the default it carries there;
// each default is the controllers' own flag default (a test checks it), so leaving one unset changes
// nothing, and the README's Install section documents each (a test checks that too). Images are not
// variables: clusterctl's `images:` setting overrides their registry and tag. There is no variable for
// --watch-filter: its default is empty, and clusterctl takes an empty default for none at all.

export interface Variable {
  readonly name: string;
  /** The controller flag it sets, on every controller. */
  readonly flag: string;
  /** The default written in the components (`${NAME:=default}`): unset or empty gives this. */
  readonly default: string;
  readonly help: string;
}

export const VARIABLES: readonly Variable[] = [
  { name: 'METAL3_TS_LOG_LEVEL', flag: 'log-level', default: 'info', help: 'Lowest level logged: debug, info, warn or error' },
  { name: 'METAL3_TS_KUBE_API_QPS', flag: 'kube-api-qps', default: '20', help: 'Queries per second to the apiserver per controller (CAPM3\'s default); <= 0 turns the limit off' },
  { name: 'METAL3_TS_KUBE_API_BURST', flag: 'kube-api-burst', default: '30', help: 'Burst of queries to the apiserver per controller' },
];

export function declared(name: string): Variable | undefined {
  return VARIABLES.find((v) => v.name === name);
}
