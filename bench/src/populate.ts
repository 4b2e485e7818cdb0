// Fills a namespace with inspected, available BareMetalHosts, the way BMO leaves them.
import type { Client } from '@metal3-ts/generated';
import { BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { host, inspectedStatus } from './fixtures.ts';

export async function populateHosts(client: Client, namespace: string, count: number, concurrency = 16): Promise<void> {
  const api = client.api(BareMetalHostResource, namespace);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < count; i = next++) {
        const created = await api.create(host(i));
        await api.mergePatchStatus(created.metadata.name!, { status: inspectedStatus(i) });
      }
    }),
  );
}
