// The clusterctl variables of infrastructure-components.yaml: the one list of what a user may set
// (clusterctl substitutes them from the environment or clusterctl.yaml at `clusterctl init`). Every
// `${NAME...}` in the rendered components must be declared here, with the default it carries there;
// the README's Install section documents each (a test checks both).

export interface Variable {
  readonly name: string;
  /** The default written in the components (`${NAME:=default}`): unset or empty gives this. */
  readonly default: string;
  readonly help: string;
}

export const VARIABLES: readonly Variable[] = [
  {
    name: 'METAL3_TS_IMAGE_REGISTRY',
    default: 'metal3-ts',
    help: 'Registry and path the controller images are pulled from (`<registry>/controller-<name>`)',
  },
  {
    name: 'METAL3_TS_IMAGE_TAG',
    default: '0.1.0',
    help: 'Tag of every controller image',
  },
];

export function declared(name: string): Variable | undefined {
  return VARIABLES.find((v) => v.name === name);
}
