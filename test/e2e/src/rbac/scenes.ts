// The smallest world in which each controller makes the writes its ClusterRole grants, for the RBAC
// write suite: objects created by an admin beside the real Cluster API the suite runs (and, for the
// machine controller, the BMO simulator: nothing real can provision a host here), the object on which
// the controller reports what went wrong, where on it the report is (condition messages,
// status.errorMessage), and when the scene has converged.
import type { Client, KubeObject, ResourceDescriptor } from '@metal3-ts/generated';
import { SecretResource } from '@metal3-ts/generated/core/v1';
import {
  Metal3ClusterResource,
  Metal3DataClaimResource,
  Metal3DataResource,
  Metal3DataTemplateResource,
  Metal3MachineResource,
  Metal3MachineTemplateResource,
  newMetal3Cluster,
  newMetal3DataClaim,
  newMetal3DataTemplate,
  newMetal3Machine,
  newMetal3MachineTemplate,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import type { TestEnv } from '@metal3-ts/test/envtest/env';
import { bmoSimulator } from '@metal3-ts/test/sim/bmo/index';
import { simulatorDeps, startSimulators } from '@metal3-ts/test/sim/simulator';
// The machine controller's own scene builders (Cluster + ready Metal3Cluster + bootstrap Secret,
// hosts the simulated BMO makes available, Machine + Metal3Machine pairs Cluster API links).
import { createAvailableHosts, createClusterScene, createMachine } from '../../../../controllers/machine/test/support.ts';
// The data controller's own scene (research V-2: Cluster, Machine, host with NICs, Metal3Machine,
// claim, template, Metal3Data).
import { CLUSTER as DATA_CLUSTER, createScene as createDataScene, DATA, M3M } from '../../../../controllers/data/test/support.ts';
import { createCluster } from './capi-cluster.ts';
import { SceneClock } from './clock.ts';
import { deleteClaimScene, deleteMachineScene } from './deletion-scenes.ts';
import { ipamScene } from './ipam-scenes.ts';
import { giveUpScene, remediationScene } from './remediation-scene.ts';
import type { ControllerName } from './verbs.ts';

/**
 * A scene per controller; the machine controller's with a data template (it then creates a claim);
 * `-delete`: the same brought to its deletion (deletion-scenes.ts); the data controller's with IP
 * pools, made or deleted (ipam-scenes.ts); the remediation controller's brought to where it gives up
 * (remediation-scene.ts, on the case's clock).
 */
export type SceneName =
  | ControllerName
  | 'machine-data'
  | 'machine-data-delete'
  | 'dataclaim-delete'
  | 'data-ipam'
  | 'data-ipam-delete'
  | 'remediation-give-up';

export interface Scene {
  readonly descriptor: ResourceDescriptor<KubeObject>;
  /** The object the controller reports on. */
  readonly name: string;
  /** Every text on the object where the controller reports a failure. */
  reported(object: KubeObject): string[];
  converged(): Promise<boolean>;
  stop(): Promise<void>;
}

const IMAGE = { url: 'http://172.22.0.1/images/node.img', checksum: 'http://172.22.0.1/images/node.img.sha256sum', format: 'raw' as const };
const CLUSTER_LABEL = 'cluster.x-k8s.io/cluster-name';

type Conditions = { status?: { conditions?: { message?: string }[]; v1beta2?: { conditions?: { message?: string }[] }; errorMessage?: string } };
/** Condition messages of both dialects and errorMessage. */
function reported(object: KubeObject): string[] {
  const status = (object as Conditions).status;
  return [...(status?.conditions ?? []), ...(status?.v1beta2?.conditions ?? [])].map((c) => c.message ?? '').concat(status?.errorMessage ?? []);
}

const none = async () => {};

export async function sceneFor(name: SceneName, env: TestEnv, admin: Client, ns: string, clock = new SceneClock()): Promise<Scene> {
  switch (name) {
    case 'machine-data-delete':
      return deleteMachineScene(await sceneFor('machine-data', env, admin, ns), admin, ns);
    case 'dataclaim-delete':
      return deleteClaimScene(await sceneFor('dataclaim', env, admin, ns), admin, ns);
    case 'data-ipam':
    case 'data-ipam-delete':
      return ipamScene(env, admin, ns, reported, name === 'data-ipam-delete');
    case 'cluster': {
      const cluster = await createCluster(admin, ns, 'c');
      await admin.api(Metal3ClusterResource, ns).create(
        newMetal3Cluster({
          metadata: { name: 'c', ownerReferences: [{ apiVersion: cluster.apiVersion, kind: 'Cluster', name: 'c', uid: cluster.metadata.uid ?? '' }] },
          spec: { controlPlaneEndpoint: { host: '192.168.111.249', port: 6443 } },
        }),
      );
      return {
        descriptor: Metal3ClusterResource as unknown as ResourceDescriptor<KubeObject>,
        name: 'c',
        reported,
        converged: async () => {
          const m3c = await admin.api(Metal3ClusterResource, ns).get('c');
          return m3c.status?.ready === true && (m3c.metadata.finalizers ?? []).length > 0 && !reported(m3c).some((m) => m.includes('refused'));
        },
        stop: none,
      };
    }
    case 'machine':
    case 'machine-data': {
      const deps = simulatorDeps(env.admin);
      const sims = await startSimulators(deps, bmoSimulator(deps, {}));
      await createClusterScene(admin, ns);
      await createAvailableHosts(admin, ns, ['h0']);
      const withData = name === 'machine-data';
      if (withData) {
        await admin.api(Metal3DataTemplateResource, ns).create(newMetal3DataTemplate({ metadata: { name: 'tmpl' }, spec: { clusterName: 'test1' } }));
      }
      await createMachine(admin, ns, 'm0', withData ? { spec: { image: IMAGE, dataTemplate: { name: 'tmpl', namespace: ns } } } : {});
      return {
        descriptor: Metal3MachineResource as unknown as ResourceDescriptor<KubeObject>,
        name: 'm0',
        reported,
        converged: async () => {
          const host = await admin.api(BareMetalHostResource, ns).get('h0');
          const m3m = await admin.api(Metal3MachineResource, ns).get('m0');
          const associated = (m3m.status?.conditions ?? []).some((c) => c.type === 'AssociateBMH' && c.status === 'True');
          const claimed = !withData || (await admin.api(Metal3DataClaimResource, ns).list()).items.some((c) => c.metadata.name === 'm0');
          // M-26: the host's BMC Secret carries the cluster's label (a refused label write is retried).
          const bmcSecret = await admin.api(SecretResource, ns).get(host.spec?.bmc?.credentialsName ?? '');
          const clusterName = host.metadata.labels?.[CLUSTER_LABEL];
          const labelled = !!clusterName && bmcSecret.metadata.labels?.[CLUSTER_LABEL] === clusterName;
          return host.spec?.consumerRef?.name === 'm0' && associated && claimed && labelled && !reported(m3m).some((m) => m.includes('refused'));
        },
        stop: () => sims.stop(),
      };
    }
    case 'template': {
      await admin.api(Metal3MachineTemplateResource, ns).create(
        newMetal3MachineTemplate({ metadata: { name: 't' }, spec: { template: { spec: { image: IMAGE, automatedCleaningMode: 'disabled' } } } }),
      );
      await admin.api(Metal3MachineResource, ns).create(
        newMetal3Machine({
          metadata: {
            name: 'm0',
            annotations: {
              'cluster.x-k8s.io/cloned-from-name': 't',
              'cluster.x-k8s.io/cloned-from-groupkind': 'Metal3MachineTemplate.infrastructure.cluster.x-k8s.io',
            },
          },
          spec: { image: IMAGE, automatedCleaningMode: 'metadata' },
        }),
      );
      return {
        descriptor: Metal3MachineTemplateResource as unknown as ResourceDescriptor<KubeObject>,
        name: 't',
        // The template has no status (CRD): events are the only report.
        reported: () => [],
        converged: async () => (await admin.api(Metal3MachineResource, ns).get('m0')).spec?.automatedCleaningMode === 'disabled',
        stop: none,
      };
    }
    case 'dataclaim': {
      await createCluster(admin, ns, 'cluster');
      await admin.api(Metal3DataTemplateResource, ns).create(newMetal3DataTemplate({ metadata: { name: 'tmpl' }, spec: { clusterName: 'cluster' } }));
      const labels = { [CLUSTER_LABEL]: 'cluster' };
      const m3m = await admin.api(Metal3MachineResource, ns).create(
        newMetal3Machine({ metadata: { name: 'm0', labels }, spec: { image: IMAGE, dataTemplate: { name: 'tmpl', namespace: ns } } }),
      );
      await admin.api(Metal3DataClaimResource, ns).create(
        newMetal3DataClaim({
          metadata: {
            name: 'm0',
            labels,
            ownerReferences: [{ apiVersion: m3m.apiVersion, kind: 'Metal3Machine', name: 'm0', uid: m3m.metadata.uid ?? '', controller: true }],
          },
          spec: { template: { name: 'tmpl', namespace: ns } },
        }),
      );
      return {
        descriptor: Metal3DataClaimResource as unknown as ResourceDescriptor<KubeObject>,
        name: 'm0',
        reported,
        converged: async () => {
          const claim = await admin.api(Metal3DataClaimResource, ns).get('m0');
          const template = await admin.api(Metal3DataTemplateResource, ns).get('tmpl');
          return !!claim.status?.renderedData?.name && !claim.status.errorMessage && Object.keys(template.status?.indexes ?? {}).includes('m0');
        },
        stop: none,
      };
    }
    case 'data': {
      await createCluster(admin, ns, DATA_CLUSTER);
      await createDataScene(admin, ns, { without: ['cluster'] });
      return {
        descriptor: Metal3DataResource as unknown as ResourceDescriptor<KubeObject>,
        name: DATA,
        reported,
        converged: async () => {
          const data = await admin.api(Metal3DataResource, ns).get(DATA);
          const template = await admin.api(Metal3DataTemplateResource, ns).get('tmpl');
          const secrets = (await admin.api(SecretResource, ns).list()).items.map((x) => x.metadata.name);
          return data.status?.ready === true && !data.status.errorMessage && (template.metadata.finalizers ?? []).length > 0 &&
            secrets.includes(`${M3M}-metadata`) && secrets.includes(`${M3M}-networkdata`);
        },
        stop: none,
      };
    }
    case 'labelsync':
      // Its only verbs beyond list/watch are the kubeconfig Secret's get and events (cases.ts NOT_SHOWN).
      throw new Error('no write scene for the label-sync controller');
    case 'remediation':
      return remediationScene(env, admin, ns);
    case 'remediation-give-up':
      return giveUpScene(await remediationScene(env, admin, ns), admin, ns, clock);
  }
}
