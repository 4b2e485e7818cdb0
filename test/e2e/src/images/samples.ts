// The cheapest observable reconcile of each controller, for the image test: one sample object and the
// write the controller makes to it. A controller without an entry here fails the image test, by name,
// so a new controller gets its image checked too.
import type { Client } from '@metal3-ts/generated';
import { ClusterResource, newCluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import {
  Metal3ClusterResource,
  Metal3DataTemplateResource,
  Metal3MachineResource,
  Metal3MachineTemplateResource,
  Metal3RemediationResource,
  newMetal3Cluster,
  newMetal3DataTemplate,
  newMetal3Machine,
  newMetal3MachineTemplate,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { EventResource } from '@metal3-ts/generated/core/v1';
import { eventually } from '@metal3-ts/test/testing/eventually';
import { objectWhen } from '@metal3-ts/test/testing/objects';
import { CLONED_FROM_GROUPKIND_ANNOTATION, CLONED_FROM_NAME_ANNOTATION, METAL3_MACHINE_TEMPLATE_GROUPKIND } from '@metal3-ts/controller-template/names';
import {
  claimsBound,
  createClaim,
  createCluster as createClaimCluster,
  createTemplate as createClaimTemplate,
} from '../../../../controllers/dataclaim/test/support.ts';
import { CLUSTER as LABEL_SYNC_CLUSTER, createScene as createLabelSyncScene, setNodeRef } from '../../../../controllers/labelsync/test/support.ts';
import { createFixture as createRemediation } from '../../../../controllers/remediation/test/support.ts';

const TIMEOUT_MS = 30_000;
const image = { url: 'http://172.22.0.1/images/node.img', checksum: 'http://172.22.0.1/images/node.img.sha256sum', format: 'raw' as const };

/** Creates the sample in `ns`, waits for the controller's write, and says what was seen. */
export type Sample = (admin: Client, ns: string) => Promise<string>;

const SINGLES = {
  async cluster(admin, ns) {
    const cluster = await admin.api(ClusterResource, ns).create(newCluster({ metadata: { name: 'sample' }, spec: {} }));
    const owner = { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', name: 'sample', uid: cluster.metadata.uid!, controller: true };
    await admin.api(Metal3ClusterResource, ns).create(
      newMetal3Cluster({ metadata: { name: 'sample', ownerReferences: [owner] }, spec: { controlPlaneEndpoint: { host: 'api.sample.example', port: 6443 } } }),
    );
    await objectWhen(
      admin,
      Metal3ClusterResource,
      ns,
      'sample',
      'Metal3Cluster finalizer and ready',
      (m) => !!m.metadata.finalizers?.length && m.status?.ready === true,
      TIMEOUT_MS,
    );
    return 'Metal3Cluster has its finalizer and status.ready';
  },
  async template(admin, ns) {
    await admin.api(Metal3MachineTemplateResource, ns).create(
      newMetal3MachineTemplate({ metadata: { name: 'sample' }, spec: { template: { spec: { image, automatedCleaningMode: 'disabled' } } } }),
    );
    const annotations = { [CLONED_FROM_NAME_ANNOTATION]: 'sample', [CLONED_FROM_GROUPKIND_ANNOTATION]: METAL3_MACHINE_TEMPLATE_GROUPKIND };
    await admin.api(Metal3MachineResource, ns).create(
      newMetal3Machine({ metadata: { name: 'sample-0', annotations }, spec: { image, automatedCleaningMode: 'metadata' } }),
    );
    await objectWhen(
      admin,
      Metal3MachineResource,
      ns,
      'sample-0',
      'the template mode on its clone',
      (m) => m.spec?.automatedCleaningMode === 'disabled',
      TIMEOUT_MS,
    );
    return "the cloned Metal3Machine took the template's automatedCleaningMode";
  },
  async machine(admin, ns) {
    await admin.api(Metal3MachineResource, ns).create(newMetal3Machine({ metadata: { name: 'sample' }, spec: { image } }));
    await objectWhen(
      admin,
      Metal3MachineResource,
      ns,
      'sample',
      'a status condition (waiting for its owner Machine)',
      (m) => (m.status?.conditions?.length ?? 0) > 0,
      TIMEOUT_MS,
    );
    return 'the Metal3Machine without an owner got its waiting condition in status';
  },
  async data(admin, ns) {
    await admin.api(ClusterResource, ns).create(newCluster({ metadata: { name: 'sample' }, spec: {} }));
    await admin.api(Metal3DataTemplateResource, ns).create(newMetal3DataTemplate({ metadata: { name: 'sample' }, spec: { clusterName: 'sample' } }));
    await objectWhen(admin, Metal3DataTemplateResource, ns, 'sample', 'Metal3DataTemplate finalizer', (t) => !!t.metadata.finalizers?.length, TIMEOUT_MS);
    return 'the Metal3DataTemplate has its finalizer';
  },
  async dataclaim(admin, ns) {
    await createClaimCluster(admin, ns);
    await createClaimTemplate(admin, ns, 'sample');
    await createClaim(admin, ns, 'sample-machine', 'sample');
    await claimsBound(admin, ns, ['sample-machine'], TIMEOUT_MS);
    return 'the Metal3DataClaim got its Metal3Data (status.renderedData)';
  },
  // No workload cluster needed: a prefix that is no label prefix is reported on the Metal3Cluster (LS-4).
  async labelsync(admin, ns) {
    await createLabelSyncScene(admin, ns, 'Bad_Prefix', { 'my.org/rack': 'r1' });
    await setNodeRef(admin, ns, 'host-0');
    await eventually('the InvalidLabelSyncPrefix event on the Metal3Cluster', async () => {
      const events = (await admin.api(EventResource, ns).list()).items;
      return events.find((e) => e.reason === 'InvalidLabelSyncPrefix' && e.involvedObject.name === LABEL_SYNC_CLUSTER) ? true : undefined;
    }, TIMEOUT_MS);
    return 'the Metal3Cluster with an invalid label-sync prefix got the InvalidLabelSyncPrefix Warning event';
  },
  async remediation(admin, ns) {
    await createRemediation(admin, ns, { online: false });
    await objectWhen(admin, Metal3RemediationResource, ns, 'worker-0', 'phase Failed (host offline)', (r) => r.status?.phase === 'Failed', TIMEOUT_MS);
    return 'the Metal3Remediation of an offline host is Failed (RS-8)';
  },
} satisfies Record<string, Sample>;

export const SAMPLES: Readonly<Record<string, Sample>> = {
  ...SINGLES,
  // One process, every controller: each sample in turn (the data sample's Cluster would take the
  // cluster sample's name; the dataclaim sample exercises the data side with its own Cluster).
  async 'all-in-one'(admin, ns) {
    const seen: string[] = [];
    for (const sample of [SINGLES.cluster, SINGLES.template, SINGLES.machine, SINGLES.dataclaim, SINGLES.remediation]) seen.push(await sample(admin, ns));
    return seen.join('; ');
  },
};
