// BareMetalHost fixtures for tests of the driver and of the controllers that use it: a host as BMO
// would serve it, with only the fields a test cares about spelled out.
import { type BareMetalHost, type BareMetalHostSpec, newBareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { type ConsumerReference, consumerRefFor } from './consumer.ts';

export interface TestHostOptions {
  readonly namespace?: string;
  /** `status.provisioning.state` (default `available`). */
  readonly state?: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
  readonly consumer?: ConsumerReference;
  readonly errorMessage?: string;
  readonly deleting?: boolean;
  readonly poweredOn?: boolean;
  readonly resourceVersion?: string;
  readonly spec?: Partial<BareMetalHostSpec>;
}

export function testHost(name: string, options: TestHostOptions = {}): BareMetalHost {
  return newBareMetalHost({
    metadata: {
      name,
      namespace: options.namespace ?? 'ns',
      uid: `uid-${name}`,
      resourceVersion: options.resourceVersion ?? '1',
      ...(options.labels ? { labels: { ...options.labels } } : {}),
      ...(options.annotations ? { annotations: { ...options.annotations } } : {}),
      ...(options.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['baremetalhost.metal3.io'] } : {}),
    },
    spec: {
      online: false,
      automatedCleaningMode: 'metadata',
      bmc: { address: `redfish://bmc/${name}`, credentialsName: `${name}-bmc` },
      ...(options.consumer ? { consumerRef: consumerRefFor(options.consumer) } : {}),
      ...options.spec,
    },
    status: {
      errorCount: 0,
      errorMessage: options.errorMessage ?? '',
      operationalStatus: options.errorMessage ? 'error' : 'OK',
      poweredOn: options.poweredOn ?? false,
      provisioning: { ID: `ironic-${name}`, state: options.state ?? 'available' },
    },
  });
}

/** A Metal3Machine consumer reference (`infrastructure.cluster.x-k8s.io/v1beta1`). */
export function machineRef(name: string, namespace = 'ns', uid?: string): ConsumerReference {
  return { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name, namespace, ...(uid ? { uid } : {}) };
}
