// The Metal3Data a claim gets (research DT-13), field for field as CAPM3 writes it: named
// `<template>-<index>` in the template's namespace, our finalizer, the claim's labels (the
// Metal3Machine's, DC-1, so `cluster.x-k8s.io/cluster-name` reaches the Metal3Data controller: E-42),
// and three owner references: the template as controller, the claim, the Metal3Machine. The only
// addition is `spec.templateReference`, copied from the template when set, as CAPM3's design says.
import type { OwnerReference } from '@metal3-ts/generated';
import { type Metal3Data, type Metal3DataClaim, type Metal3DataTemplate, newMetal3Data } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { DATA_CLAIM_FINALIZER, dataName, INFRASTRUCTURE_API_VERSION } from './names.ts';

export interface NewDataInputs {
  readonly template: Readonly<Metal3DataTemplate>;
  readonly claim: Readonly<Metal3DataClaim>;
  /** The claim's Metal3Machine owner reference (DT-11). */
  readonly machine: Readonly<OwnerReference>;
  readonly index: number;
}

export function newMetal3DataFor({ template, claim, machine, index }: NewDataInputs): Metal3Data {
  const templateName = template.metadata.name ?? '';
  const namespace = template.metadata.namespace ?? '';
  const labels = claim.metadata.labels;
  const reference = template.spec?.templateReference;
  return newMetal3Data({
    metadata: {
      name: dataName(templateName, index),
      namespace,
      finalizers: [DATA_CLAIM_FINALIZER],
      ...(labels && Object.keys(labels).length > 0 ? { labels: { ...labels } } : {}),
      ownerReferences: [
        // CAPM3 sets controller but not blockOwnerDeletion on these.
        {
          apiVersion: template.apiVersion ?? INFRASTRUCTURE_API_VERSION,
          kind: 'Metal3DataTemplate',
          name: templateName,
          uid: template.metadata.uid ?? '',
          controller: true,
        },
        { apiVersion: claim.apiVersion ?? INFRASTRUCTURE_API_VERSION, kind: 'Metal3DataClaim', name: claim.metadata.name ?? '', uid: claim.metadata.uid ?? '' },
        { apiVersion: machine.apiVersion, kind: 'Metal3Machine', name: machine.name, uid: machine.uid },
      ],
    },
    spec: {
      index,
      template: { name: templateName, namespace },
      claim: { name: claim.metadata.name ?? '', namespace },
      ...(reference ? { templateReference: reference } : {}),
    },
  });
}
