// A host the simulated BMO can take all the way: a BareMetalHost with BMC details and the Secret
// holding its credentials (BMO refuses to register a host without both).
import { newSecret, type Secret } from '@metal3-ts/generated/core/v1';
import { type BareMetalHost, type BareMetalHostSpec, newBareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';

export interface SimulatedHostOptions {
  readonly namespace?: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
  /** Merged over the defaults (`online: true`, redfish BMC, credentials `<name>-bmc-secret`). */
  readonly spec?: Partial<BareMetalHostSpec>;
}

/** The host and its BMC credentials Secret; create the Secret first or together with the host. */
export function simulatedHost(name: string, options: SimulatedHostOptions = {}): { host: BareMetalHost; secret: Secret } {
  const credentialsName = options.spec?.bmc?.credentialsName ?? `${name}-bmc-secret`;
  const meta = (extra: object) => ({ name, ...(options.namespace ? { namespace: options.namespace } : {}), ...extra });
  const host = newBareMetalHost({
    metadata: meta({
      ...(options.labels ? { labels: { ...options.labels } } : {}),
      ...(options.annotations ? { annotations: { ...options.annotations } } : {}),
    }),
    spec: {
      online: true,
      ...options.spec,
      bmc: { address: `redfish+http://192.168.111.1:8000/redfish/v1/Systems/${name}`, ...options.spec?.bmc, credentialsName },
    },
  });
  const secret = newSecret({
    metadata: { ...meta({}), name: credentialsName },
    type: 'Opaque',
    data: { username: btoa('admin'), password: btoa('password') },
  });
  return { host, secret };
}
