// The invariant sampler of a chaos run: lists the namespace again and again (one LIST per kind, so
// each check sees one consistent listing) and records every violation with when it was first seen.
// Reads that fail (the apiserver or etcd is down) are counted, not treated as violations.
import type { Client } from '@metal3-ts/generated';
import { MachineResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { Metal3DataResource, Metal3MachineResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { IPAddressResource } from '@metal3-ts/generated/ipam.metal3.io/v1alpha1';
import { BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { violations, type World } from './invariants.ts';

export async function listWorld(client: Client, namespace: string): Promise<World> {
  const [hosts, metal3Machines, machines, datas, ipAddresses] = await Promise.all([
    client.api(BareMetalHostResource, namespace).list(),
    client.api(Metal3MachineResource, namespace).list(),
    client.api(MachineResource, namespace).list(),
    client.api(Metal3DataResource, namespace).list(),
    client.api(IPAddressResource, namespace).list(),
  ]);
  return { hosts: hosts.items, metal3Machines: metal3Machines.items, machines: machines.items, datas: datas.items, ipAddresses: ipAddresses.items };
}

export interface Sampling {
  samples: number;
  failedReads: number;
  /** Violation message → how often it was seen and when first (ms since the sampler started). */
  readonly violations: Map<string, { count: number; firstMs: number }>;
}

export class Sampler {
  readonly stats: Sampling = { samples: 0, failedReads: 0, violations: new Map() };
  #running = true;
  readonly #done: Promise<void>;

  constructor(client: Client, namespace: string, pauseMs = 100) {
    const t0 = performance.now();
    this.#done = (async () => {
      while (this.#running) {
        try {
          const found = violations(await listWorld(client, namespace));
          this.stats.samples++;
          for (const v of found) {
            const seen = this.stats.violations.get(v);
            if (seen) seen.count++;
            else this.stats.violations.set(v, { count: 1, firstMs: performance.now() - t0 });
          }
        } catch {
          this.stats.failedReads++;
        }
        await new Promise((r) => setTimeout(r, pauseMs));
      }
    })();
  }

  async stop(): Promise<Sampling> {
    this.#running = false;
    await this.#done;
    return this.stats;
  }
}
