// Where each upstream webhook rule (research §7 for v1beta1, W2-1…W2-10 of the v1beta2 note), and
// each rule of our own (issue 21), lives in our CRDs. webhook-rules.test.ts checks that every entry is
// really on that schema node of that version; docs/crds.md explains the mapping and what could not be
// expressed.
import type { OurKind } from './crds.ts';

export interface WebhookRule {
  readonly id: string;
  readonly kind: OurKind;
  /** API version whose schema carries the rule. */
  readonly version: 'v1beta1' | 'v1beta2';
  /** Schema node carrying the rule ('' is the object root). */
  readonly node: string;
  /** Our message (or the start of messageExpression output). */
  readonly message: string;
  /** Only on create (optionalOldSelf + `oldSelf.hasValue() ||`), only on update (oldSelf), or both. */
  readonly when: 'create' | 'update' | 'always';
}

/** The v1beta2 image rules (W2-4, W2-5): one set per spec that carries an image. */
function imageRules(id: string, kind: OurKind, node: string): WebhookRule[] {
  return [
    'either image or customDeploy is required',
    // No URL rule for image.url: its schema (upstream's) says format: uri, which refuses first.
    'image.checksum cannot be empty unless image.diskFormat is live-iso or customDeploy.method is set',
    'image.checksum is not a valid URL',
  ].map((message) => ({ id, version: 'v1beta2', kind, node, message, when: 'always' }));
}

export const webhookRules: readonly WebhookRule[] = [
  { id: 'W-3', version: 'v1beta1', kind: 'Metal3Cluster', node: '', message: 'spec is required', when: 'always' },
  { id: 'W-3', version: 'v1beta1', kind: 'Metal3Cluster', node: '.spec', message: 'controlPlaneEndpoint.host is required', when: 'always' },
  { id: 'W-3', version: 'v1beta1', kind: 'Metal3Cluster', node: '.spec', message: 'cloudProviderEnabled conflicts the value of noCloudProvider', when: 'always' },
  { id: 'W-4', version: 'v1beta1', kind: 'Metal3ClusterTemplate', node: '.spec.template.spec', message: 'Missing fields from Spec: [', when: 'always' },
  { id: 'W-5', version: 'v1beta1', kind: 'Metal3Machine', node: '', message: 'spec is required', when: 'always' },
  { id: 'W-10', version: 'v1beta1', kind: 'Metal3Machine', node: '.spec', message: 'image.url cannot be empty unless customDeploy.method is set', when: 'always' },
  { id: 'W-10', version: 'v1beta1', kind: 'Metal3Machine', node: '.spec', message: 'image.url is not a valid URL', when: 'always' },
  { id: 'W-10', version: 'v1beta1', kind: 'Metal3Machine', node: '.spec', message: 'image.checksum cannot be empty unless image.format is live-iso or customDeploy.method is set', when: 'always' },
  { id: 'W-10', version: 'v1beta1', kind: 'Metal3Machine', node: '.spec', message: 'image.checksum is not a valid URL', when: 'always' },
  { id: 'W-6', version: 'v1beta1', kind: 'Metal3MachineTemplate', node: '.spec.template.spec', message: 'image.url cannot be empty unless customDeploy.method is set', when: 'always' },
  { id: 'W-6', version: 'v1beta1', kind: 'Metal3MachineTemplate', node: '.spec.template.spec', message: 'image.url is not a valid URL', when: 'always' },
  { id: 'W-6', version: 'v1beta1', kind: 'Metal3MachineTemplate', node: '.spec.template.spec', message: 'image.checksum cannot be empty unless image.format is live-iso or customDeploy.method is set', when: 'always' },
  { id: 'W-6', version: 'v1beta1', kind: 'Metal3MachineTemplate', node: '.spec.template.spec', message: 'image.checksum is not a valid URL', when: 'always' },
  { id: 'W-7', version: 'v1beta1', kind: 'Metal3DataTemplate', node: '.spec.networkData.networks.ipv4[]', message: 'fromPoolRef needs to contain a reference to an IPPool', when: 'always' },
  { id: 'W-7', version: 'v1beta1', kind: 'Metal3DataTemplate', node: '.spec.networkData.networks.ipv6[]', message: 'fromPoolRef needs to contain a reference to an IPPool', when: 'always' },
  // v1.13.2's boot-MAC source reached v1beta1 too (AP-19); its one-of rule is W2-7's, on both versions.
  { id: 'W2-7', version: 'v1beta1', kind: 'Metal3DataTemplate', node: '.spec.metaData.fromHostInterfaces[]', message: 'interface must be specified when fromBootMAC is false', when: 'always' },
  { id: 'W2-7', version: 'v1beta1', kind: 'Metal3DataTemplate', node: '.spec.metaData.fromHostInterfaces[]', message: 'interface must be empty when fromBootMAC is true', when: 'always' },
  { id: 'W-8', version: 'v1beta1', kind: 'Metal3DataTemplate', node: '.spec', message: 'metaData cannot be modified', when: 'update' },
  { id: 'W-8', version: 'v1beta1', kind: 'Metal3DataTemplate', node: '.spec', message: 'networkData cannot be modified', when: 'update' },
  { id: 'W-9', version: 'v1beta1', kind: 'Metal3DataClaim', node: '', message: 'spec is required', when: 'always' },
  { id: 'W-9', version: 'v1beta1', kind: 'Metal3DataClaim', node: '', message: 'spec.template.name must be set', when: 'create' },
  { id: 'W-9', version: 'v1beta1', kind: 'Metal3DataClaim', node: '.spec.template', message: 'template name, namespace and kind cannot be modified', when: 'update' },
  { id: 'W-11', version: 'v1beta1', kind: 'Metal3Data', node: '', message: 'spec is required', when: 'always' },
  { id: 'W-11', version: 'v1beta1', kind: 'Metal3Data', node: '', message: 'metadata.name should follow the convention <Metal3Template Name>-<index>', when: 'create' },
  { id: 'W-11', version: 'v1beta1', kind: 'Metal3Data', node: '.spec', message: 'index must be positive value', when: 'create' },
  { id: 'W-11', version: 'v1beta1', kind: 'Metal3Data', node: '.spec', message: 'index cannot be modified', when: 'update' },
  { id: 'W-11', version: 'v1beta1', kind: 'Metal3Data', node: '.spec.template', message: 'template name, namespace and kind cannot be modified', when: 'update' },
  { id: 'W-11', version: 'v1beta1', kind: 'Metal3Data', node: '.spec.claim', message: 'claim name, namespace and kind cannot be modified', when: 'update' },
  { id: 'W-12', version: 'v1beta1', kind: 'Metal3Remediation', node: '.spec.strategy', message: 'is only supported remediation strategy', when: 'always' },
  { id: 'W-12', version: 'v1beta1', kind: 'Metal3Remediation', node: '.spec.strategy', message: 'is minimum retrylimit', when: 'always' },
  { id: 'W-12', version: 'v1beta1', kind: 'Metal3Remediation', node: '.spec.strategy', message: 'min duration is 100s', when: 'always' },
  { id: 'W-13', version: 'v1beta1', kind: 'Metal3RemediationTemplate', node: '.spec.template.spec.strategy', message: 'only supported remediation strategy is reboot', when: 'always' },
  { id: 'W-13', version: 'v1beta1', kind: 'Metal3RemediationTemplate', node: '.spec.template.spec.strategy', message: 'minimum retry limit is 1', when: 'always' },
  { id: 'W-13', version: 'v1beta1', kind: 'Metal3RemediationTemplate', node: '.spec.template.spec.strategy', message: 'min duration is 100s', when: 'always' },
  { id: 'issue 21', version: 'v1beta1', kind: 'Metal3Machine', node: '', message: 'metadata.name: must be no more than 241 characters', when: 'create' },
  { id: 'issue 21', version: 'v1beta1', kind: 'Metal3DataTemplate', node: '', message: 'metadata.name: must be no more than 242 characters', when: 'create' },
  // v1beta2 (test/src/crds/validation-v1beta2.test.ts runs them in an apiserver serving v1beta2 alone)
  { id: 'W2-2', version: 'v1beta2', kind: 'Metal3Cluster', node: '', message: 'controlPlaneEndpoint.host is required', when: 'always' },
  { id: 'W2-3', version: 'v1beta2', kind: 'Metal3ClusterTemplate', node: '.spec.template.spec', message: 'missing fields from Spec: [', when: 'always' },
  { id: 'W2-4', version: 'v1beta2', kind: 'Metal3Machine', node: '', message: 'spec is required', when: 'always' },
  ...imageRules('W2-4', 'Metal3Machine', '.spec'),
  ...imageRules('W2-5', 'Metal3MachineTemplate', '.spec.template.spec'),
  { id: 'W2-6', version: 'v1beta2', kind: 'Metal3Data', node: '', message: 'metadata.name should follow the convention <Metal3Template Name>-<index>', when: 'create' },
  { id: 'W2-6', version: 'v1beta2', kind: 'Metal3Data', node: '.spec', message: 'index cannot be modified', when: 'update' },
  { id: 'W2-6', version: 'v1beta2', kind: 'Metal3Data', node: '.spec', message: 'template name and namespace cannot be modified', when: 'update' },
  { id: 'W2-6', version: 'v1beta2', kind: 'Metal3Data', node: '.spec', message: 'claim name and namespace cannot be modified', when: 'update' },
  { id: 'W2-7', version: 'v1beta2', kind: 'Metal3DataTemplate', node: '.spec.metaData.fromHostInterfaces[]', message: 'interface must be specified when fromBootMAC is false', when: 'always' },
  { id: 'W2-7', version: 'v1beta2', kind: 'Metal3DataTemplate', node: '.spec.metaData.fromHostInterfaces[]', message: 'interface must be empty when fromBootMAC is true', when: 'always' },
  { id: 'W2-7', version: 'v1beta2', kind: 'Metal3DataTemplate', node: '.spec.networkData.networks.ipv4[]', message: 'fromPoolRef needs to contain a reference to an IPPool', when: 'always' },
  { id: 'W2-7', version: 'v1beta2', kind: 'Metal3DataTemplate', node: '.spec.networkData.networks.ipv6[]', message: 'fromPoolRef needs to contain a reference to an IPPool', when: 'always' },
  { id: 'W2-7', version: 'v1beta2', kind: 'Metal3DataTemplate', node: '.spec', message: 'metaData cannot be modified', when: 'update' },
  { id: 'W2-7', version: 'v1beta2', kind: 'Metal3DataTemplate', node: '.spec', message: 'networkData cannot be modified', when: 'update' },
  { id: 'W2-8', version: 'v1beta2', kind: 'Metal3DataClaim', node: '', message: 'spec.template.name must be set', when: 'create' },
  { id: 'W2-8', version: 'v1beta2', kind: 'Metal3DataClaim', node: '.spec', message: 'template name and namespace cannot be modified', when: 'update' },
  { id: 'W2-9', version: 'v1beta2', kind: 'Metal3Remediation', node: '.spec.strategy', message: 'is only supported remediation strategy', when: 'always' },
  { id: 'W2-9', version: 'v1beta2', kind: 'Metal3Remediation', node: '.spec.strategy', message: 'is minimum retrylimit', when: 'always' },
  { id: 'W2-9', version: 'v1beta2', kind: 'Metal3Remediation', node: '.spec.strategy', message: 'min duration is 100 seconds', when: 'always' },
  { id: 'W2-10', version: 'v1beta2', kind: 'Metal3RemediationTemplate', node: '.spec.template.spec.strategy', message: 'only supported remediation strategy is reboot', when: 'always' },
  { id: 'W2-10', version: 'v1beta2', kind: 'Metal3RemediationTemplate', node: '.spec.template.spec.strategy', message: 'minimum retry limit is 1', when: 'always' },
  { id: 'W2-10', version: 'v1beta2', kind: 'Metal3RemediationTemplate', node: '.spec.template.spec.strategy', message: 'min duration is 100 seconds', when: 'always' },
  { id: 'issue 21', version: 'v1beta2', kind: 'Metal3Machine', node: '', message: 'metadata.name: must be no more than 241 characters', when: 'create' },
  { id: 'issue 21', version: 'v1beta2', kind: 'Metal3DataTemplate', node: '', message: 'metadata.name: must be no more than 242 characters', when: 'create' },
];

/** Expected names per kind (research §0.1); every kind is also in the `cluster-api` category. */
export const expectedShortNames: Readonly<Record<OurKind, readonly string[]>> = {
  Metal3Cluster: ['m3c', 'm3cluster', 'm3clusters', 'metal3c', 'metal3cluster'],
  Metal3ClusterTemplate: ['m3ct'],
  Metal3Machine: ['m3m', 'm3machine', 'm3machines', 'metal3m', 'metal3machine'],
  Metal3MachineTemplate: ['m3mt', 'm3machinetemplate', 'm3machinetemplates', 'metal3mt', 'metal3machinetemplate'],
  Metal3DataTemplate: ['m3dt', 'm3datatemplate', 'm3datatemplates', 'metal3dt', 'metal3datatemplate'],
  Metal3DataClaim: ['m3dc', 'm3dataclaim', 'm3dataclaims', 'metal3dc', 'metal3dataclaim'],
  Metal3Data: ['m3d', 'm3data', 'm3datas', 'metal3d', 'metal3data'],
  Metal3Remediation: ['m3r', 'm3remediation'],
  Metal3RemediationTemplate: ['m3rt', 'm3remediationtemplate', 'm3remediationtemplates', 'metal3rt', 'metal3remediationtemplate'],
};
