// Research D-2/D-3: the IPAM kinds are optional. At start-up the controller asks the apiserver
// whether it serves them (a list of at most one object); only served kinds get an informer and a
// watch. Any other failure aborts start-up, as upstream: running blind would leave claims unwatched.
// As upstream (E-44), IPAM CRDs installed later need a restart.
import type { Client, KubeObject, ResourceDescriptor } from '@metal3-ts/generated';
import { isNotFound } from '@metal3-ts/generated/runtime/errors';
import { IPAddressClaimResource } from '@metal3-ts/generated/ipam.cluster.x-k8s.io/v1beta1';
import { IPClaimResource } from '@metal3-ts/generated/ipam.metal3.io/v1alpha1';

export interface ServedIpamKinds {
  /** `ipam.metal3.io/v1alpha1` IPClaim and IPAddress. */
  readonly metal3: boolean;
  /** `ipam.cluster.x-k8s.io/v1beta1` IPAddressClaim and IPAddress. */
  readonly capi: boolean;
}

async function serves<T extends KubeObject>(client: Client, descriptor: ResourceDescriptor<T>, namespace: string | undefined): Promise<boolean> {
  try {
    await (namespace ? client.api(descriptor, namespace) : client.all(descriptor)).list({ limit: 1 });
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

/** Which IPAM kinds the apiserver serves (in `namespace` when the controller is limited to one). */
export async function probeIpamKinds(client: Client, namespace?: string): Promise<ServedIpamKinds> {
  const [metal3, capi] = await Promise.all([serves(client, IPClaimResource, namespace), serves(client, IPAddressClaimResource, namespace)]);
  return { metal3, capi };
}
