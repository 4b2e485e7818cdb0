// M-35, M-36: the Metal3Machine side of the data template flow. It creates a Metal3DataClaim named
// like itself (DC-1); the dataclaim controller allocates a Metal3Data and names it in the claim's
// status; the data controller renders the Secrets and marks the Metal3Data ready; this phase then
// copies the Secret names into the data references (status.metaData/networkData, data-references.ts),
// from where they reach the host.
// Every wait ends with a watch event (M-5, M-6), not a 30 s poll. Phase `metadata` claims; phase
// `host` (keep-host.ts) waits for the Secrets.
import { isAlreadyExists } from '@metal3-ts/generated';
import { Metal3DataClaimResource, type Metal3Machine, newMetal3DataClaim } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { MachineContext, PhaseResult } from '../context.ts';
import type { MachineReconcilerDeps } from '../deps.ts';
import { InvalidConfigurationError } from '../errors.ts';
import { specDataSecrets } from '../host-spec.ts';
import { METAL3_MACHINE_FINALIZER } from '../names.ts';
import { dataReferences, type MachineScope } from '../scope.ts';
import type { DataReferences } from '../data-references.ts';

/**
 * M-35: the Secrets named in the spec go to the data references (`status`); with a data template, its namespace is
 * defaulted (in memory, persisted by the final patch) and the claim is created if it does not exist.
 * Throws InvalidConfigurationError for a template without a name.
 */
export async function claimMetadata(deps: Pick<MachineReconcilerDeps, 'client' | 'informers'>, m3m: Metal3Machine, refs: DataReferences): Promise<void> {
  const secrets = specDataSecrets(m3m);
  if (secrets.metaData) refs.metaData = secrets.metaData;
  if (secrets.networkData) refs.networkData = secrets.networkData;
  if (refs.renderedData) return;
  const template = m3m.spec?.dataTemplate;
  if (!template) return;
  // A template of another namespace never gets here: phase `spec` refuses every foreign reference
  // of the shared table (issue 21) before any phase runs.
  const namespace = m3m.metadata.namespace ?? '';
  if (!template.name) throw new InvalidConfigurationError('spec.dataTemplate.name must be set');
  template.namespace = namespace;
  const name = m3m.metadata.name ?? '';
  if (deps.informers.claims.store.get({ namespace, name })) return;
  const claim = newMetal3DataClaim({
    metadata: {
      name,
      namespace,
      labels: { ...(m3m.metadata.labels ?? {}) },
      finalizers: [METAL3_MACHINE_FINALIZER],
      ownerReferences: [{ apiVersion: m3m.apiVersion, kind: m3m.kind, name, uid: m3m.metadata.uid ?? '', controller: true }],
    },
    spec: { template: { name: template.name, namespace, ...(template.kind ? { kind: template.kind } : {}) } },
  });
  try {
    await deps.client.api(Metal3DataClaimResource, namespace).create(claim);
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
}

export type MetadataWait = { readonly ready: true } | { readonly ready: false; readonly message: string; readonly dataWaiting: boolean };

/**
 * M-36: nothing to wait for without a data template; otherwise the claim's Metal3Data must exist and
 * be ready, and then its Secrets are copied to the status (unless the spec named others, M-35).
 */
export function waitForMetadata(deps: Pick<MachineReconcilerDeps, 'informers'>, m3m: Readonly<Metal3Machine>, refs: DataReferences): MetadataWait {
  const namespace = m3m.metadata.namespace ?? '';
  if (!refs.renderedData) {
    if (!m3m.spec?.dataTemplate) return { ready: true };
    const claim = deps.informers.claims.store.get({ namespace, name: m3m.metadata.name ?? '' });
    if (!claim) return { ready: false, message: 'Metal3DataClaim is not found, requeuing', dataWaiting: false };
    const rendered = claim.status?.renderedData?.name;
    if (!rendered) {
      const problem = claim.status?.errorMessage;
      return { ready: false, message: problem ? `Metal3DataClaim: ${problem}` : 'Waiting for Metal3DataTemplate to be available', dataWaiting: false };
    }
    refs.renderedData = { name: rendered, namespace };
  }
  const data = deps.informers.datas.store.get({ namespace, name: refs.renderedData.name ?? '' });
  if (!data) return { ready: false, message: 'Metal3Data is not found, requeuing', dataWaiting: false };
  if (data.status?.ready !== true) {
    const problem = data.status?.errorMessage;
    return {
      ready: false,
      message: problem ? `Metal3Data ${data.metadata.name ?? ''}: ${problem}` : 'Waiting for Metal3Data to become ready',
      dataWaiting: true,
    };
  }
  if (!refs.metaData && data.spec?.metaData?.name) refs.metaData = { name: data.spec.metaData.name, namespace };
  if (!refs.networkData && data.spec?.networkData?.name) refs.networkData = { name: data.spec.networkData.name, namespace };
  return { ready: true };
}

/**
 * Phase `metadata` (M-28): the claim is made; a Node problem of an earlier pass (a refused claim
 * write, an unusable workload cluster, a provider-ID conflict) is stale now unless the Node phase
 * finds it again.
 */
export async function reconcileMetadata(ctx: MachineContext, scope: MachineScope): Promise<PhaseResult> {
  await claimMetadata(ctx.deps, scope.m3m, dataReferences(scope));
  scope.observed.metadataAssociated = true;
  scope.observed.node = { kind: 'Waiting', message: 'Waiting for the Node of the workload cluster' };
  return undefined;
}
