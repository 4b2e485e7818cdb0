// Section 4 (X-1…X-16): giving the host back when a Metal3Machine is deleted. The claim on the
// data template is dropped, the host is deprovisioned and, once BMO has cleaned it, released
// (baremetal/src/release.ts), optionally reserved for the next machine of the same control plane or
// MachineDeployment. Our finalizer goes last, so the Metal3Machine never disappears while a
// host still names it as consumer.
//
// Changed from upstream (docs/compatibility.md):
// - the hosts released are the annotated one and every host whose consumerRef still names this
//   machine (a crash between claiming and annotating cannot leak a host);
// - the metadata/network data references a data template put on the host are removed with the
//   deployment (E-25): whether to clear them is decided before the status forgets them;
// - a stale owner reference to us on a host held by someone else is removed (E-19);
// - the user data Secret is never deleted: it belongs to the bootstrap provider or the user;
// - waits are woken by the host's own events, not a 30 s poll.
import { type Client, isNotFound, registry } from '@metal3-ts/generated';
import type { Cluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { SecretResource } from '@metal3-ts/generated/core/v1';
import { Metal3DataClaimResource, type Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { nodeReuseForReleasingMachine, type TemplateKey, templatePointedToBy } from '@metal3-ts/baremetal/node-reuse-policy';
import { reuseOwner } from '@metal3-ts/baremetal/node-reuse';
import { isClaimedBy } from '@metal3-ts/baremetal/consumer';
import { hostKey } from '@metal3-ts/baremetal/host-patch';
import { hasDeployment } from '@metal3-ts/baremetal/provision';
import { releaseHost, type ReleaseStep } from '@metal3-ts/baremetal/release';
import { hasFinishedDeprovisioning } from '@metal3-ts/baremetal/states';
import { removeFinalizerGuarded } from '@metal3-ts/shared/meta/ensure-finalizer';
import { hasFinalizer } from '@metal3-ts/shared/meta/finalizers';
import { runStep } from '@metal3-ts/shared/controller/step-error';
import type { Logger } from '@metal3-ts/shared/log/logger';
import type { MachineContext, PhaseResult } from '../context.ts';
import type { MachineReconcilerDeps } from '../deps.ts';
import { CLUSTER_NAME_LABEL, METAL3_MACHINE_FINALIZER } from '../names.ts';
import { dataReferences, type MachineScope } from '../scope.ts';
import type { DataReferences } from '../data-references.ts';
import { consumerOf, reuseNameOf } from './associate.ts';
import { onFreshHost } from '@metal3-ts/baremetal/fresh-host';
import type { CachedMachine } from '../projections.ts';

/** the claim loses our finalizer and is deleted (the template controller frees its Metal3Data). */
export async function dissociateMetadata(
  deps: Pick<MachineReconcilerDeps, 'client' | 'informers'>,
  m3m: Readonly<Metal3Machine>,
  refs: DataReferences,
): Promise<void> {
  if (!m3m.spec?.metaData) delete refs.metaData;
  if (!m3m.spec?.networkData) delete refs.networkData;
  delete refs.renderedData;
  const namespace = m3m.metadata.namespace ?? '';
  const claim = deps.informers.claims.store.get({ namespace, name: m3m.metadata.name ?? '' });
  if (!claim) return;
  const api = deps.client.api(Metal3DataClaimResource, namespace);
  try {
    if (hasFinalizer(claim, METAL3_MACHINE_FINALIZER)) await removeFinalizerGuarded(api, structuredClone(claim) as typeof claim, METAL3_MACHINE_FINALIZER);
    if (!claim.metadata.deletionTimestamp) await api.delete(claim.metadata.name ?? '');
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

/**
 * X-10, N-6, B2-15: the reuse label for the released host, when the Cluster is known and not being
 * deleted and the template that decides (templateOfOwner, else the one the machine was cloned from)
 * still exists with `nodeReuse: true`.
 */
async function reuseLabelFor(
  deps: Pick<MachineReconcilerDeps, 'client' | 'informers'>,
  m3m: Readonly<Metal3Machine>,
  machine: Readonly<CachedMachine> | undefined,
  cluster: Readonly<Cluster> | undefined,
  log: Logger,
): Promise<string | undefined> {
  if (!machine || !cluster || cluster.metadata.deletionTimestamp) return undefined;
  const pointedTo = await templateOfOwner(deps, machine, log);
  const reuse = await nodeReuseForReleasingMachine(m3m, (key) => deps.informers.templates.store.get(key), pointedTo);
  return reuse ? reuseNameOf(deps, machine) : undefined;
}

/**
 * B2-15 (seed 001): the template the machine's control plane or MachineDeployment points to now,
 * read live (one GET, at the version its owner reference names; the install grants get on
 * KubeadmControlPlanes and MachineDeployments). Undefined when there is no such owner, its kind is
 * not one we can read (another control-plane provider) or the read fails: the caller then goes by
 * the template the machine was cloned from, as CAPM3 v1.12.7 did.
 */
async function templateOfOwner(
  deps: Pick<MachineReconcilerDeps, 'client' | 'informers'>,
  machine: Readonly<CachedMachine>,
  log: Logger,
): Promise<TemplateKey | undefined> {
  const namespace = machine.metadata.namespace ?? '';
  let owner;
  try {
    owner = reuseOwner(machine, deps.informers.machineSets.store.list(namespace));
  } catch {
    return undefined;
  }
  const resource = registry.forObject(owner);
  if (!resource || !READABLE_OWNERS.has(resource.plural)) return undefined;
  try {
    return templatePointedToBy(await deps.client.api(resource, namespace).get(owner.name), namespace);
  } catch (error) {
    // Gone (the owner is deleted before its machines finish) is ordinary; anything else is worth a line.
    if (!isNotFound(error)) {
      log.info('cannot read the owner of a released machine; node reuse goes by the template it was cloned from', {
        owner: `${owner.kind} ${owner.name}`,
        error,
      });
    }
    return undefined;
  }
}

/** The owners whose template the machine controller may read (its deploy/rbac.yaml: get). */
const READABLE_OWNERS = new Set(['kubeadmcontrolplanes', 'machinedeployments']);

/**
 * our cluster label comes off the BMC Secret; a JSON patch whose `test` keeps another cluster's
 * label (a failed test, 422, means there is nothing of ours to remove).
 */
async function unlabelCredentials(client: Client, host: Readonly<BareMetalHost>, clusterName: string | undefined): Promise<void> {
  const name = host.spec?.bmc?.credentialsName;
  if (!name || !clusterName) return;
  const path = `/metadata/labels/${CLUSTER_NAME_LABEL.replace(/~/g, '~0').replace(/\//g, '~1')}`;
  try {
    await client.api(SecretResource, host.metadata.namespace).jsonPatch(name, [
      { op: 'test', path, value: clusterName },
      { op: 'remove', path },
    ]);
  } catch (error) {
    const code = (error as { code?: number }).code;
    if (!isNotFound(error) && code !== 422 && code !== 409) throw error;
  }
}

export type DeleteOutcome =
  | { readonly kind: 'released' }
  /** BMO is still deprovisioning `host`: its next state change wakes us. */
  | { readonly kind: 'deprovisioning'; readonly host: string; readonly state: string };

/** X-3…X-15 for every host this machine holds; `released` when none is left. */
export async function releaseHosts(
  deps: MachineReconcilerDeps,
  m3m: Readonly<Metal3Machine>,
  annotated: Readonly<BareMetalHost> | undefined,
  machine: Readonly<CachedMachine> | undefined,
  cluster: Readonly<Cluster> | undefined,
  clearData: { readonly metaData: boolean; readonly networkData: boolean },
  log: Logger,
): Promise<DeleteOutcome> {
  const consumer = consumerOf(deps, m3m, machine);
  const hosts = new Map<string, Readonly<BareMetalHost>>();
  if (annotated) hosts.set(hostKey(annotated), annotated);
  for (const host of deps.inventory.ownedBy(consumer.ref)) hosts.set(hostKey(host), host);
  const clusterName = machine?.spec?.clusterName || cluster?.metadata.name || m3m.metadata.labels?.[CLUSTER_NAME_LABEL];
  // Only a host about to be released needs the reuse label, and working it out may read the owner
  // (a GET): once per reconcile, and not on the passes that wait for deprovisioning.
  let reuse: Promise<string | undefined> | undefined;
  const releasable = (h: Readonly<BareMetalHost>) => isClaimedBy(h, consumer.ref) && hasFinishedDeprovisioning(h) && !hasDeployment(h);
  let waiting: DeleteOutcome | undefined;
  for (const host of hosts.values()) {
    // Once, just before the release step (not on every pass of the wait).
    if (releasable(host)) await unlabelCredentials(deps.client, host, clusterName);
    const step: ReleaseStep | undefined = await onFreshHost(deps.client, host, 'releasing it', async (current) => {
      const nodeReuseName = releasable(current) ? await (reuse ??= reuseLabelFor(deps, m3m, machine, cluster, log)) : undefined;
      return releaseHost(
        deps.client,
        current,
        {
          consumer: consumer.ref,
          ...(clusterName ? { clusterName } : {}),
          ...(nodeReuseName ? { nodeReuseName } : {}),
          clearUserData: !!m3m.status?.userData,
          clearMetaData: clearData.metaData,
          clearNetworkData: clearData.networkData,
          fastTrack: deps.fastTrack ?? 'false',
        },
        { onWrite: (h) => deps.inventory.noteWrite(h) },
      );
    });
    if (step?.step === 'deprovisioning') waiting ??= { kind: 'deprovisioning', host: hostKey(step.host), state: step.state };
  }
  return waiting ?? { kind: 'released' };
}

/**
 * The deletion flow's one phase: steps `dissociate` and `release` (X-3…X-15). Once no host
 * names the machine, `scope.released` tells the orchestration to remove the finalizer after the patch.
 */
export async function reconcileDelete(ctx: MachineContext, scope: MachineScope): Promise<PhaseResult> {
  scope.observed.node = { kind: 'Problem', step: 'Deleting', message: '' };
  const m3m = scope.m3m;
  const clearData = { metaData: !!m3m.status?.metaData, networkData: !!m3m.status?.networkData };
  await runStep(scope.object, 'dissociate', () => dissociateMetadata(ctx.deps, m3m, dataReferences(scope)));
  const outcome = await runStep(scope.object, 'release', () => releaseHosts(ctx.deps, m3m, scope.host, scope.machine, scope.cluster, clearData, scope.log));
  if (outcome.kind === 'deprovisioning') {
    scope.log.info(`Deprovisioning BareMetalHost ${outcome.host} (${outcome.state || 'no state'})`);
    return ctx.safetyNet;
  }
  scope.released = true;
  return {};
}
