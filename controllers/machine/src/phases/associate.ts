// M-21…M-27: choosing and claiming a host for a Metal3Machine. Two locks make it safe for any number
// of workers and replicas (CAPM3 needs a process-wide mutex and still races across replicas, E-1):
// - the chosen host is first recorded on the Metal3Machine (M-41) by a patch locked on the machine's
//   resourceVersion (host-record.ts): of two reconciles of one machine (two replicas), only the first
//   to record goes on to claim, so one machine never holds two hosts;
// - the claim is one merge patch locked on the host's resourceVersion (baremetal/src/claim.ts), so a
//   host never gets two consumers; a lost claim removes the record and the machine chooses again.
// Candidates come from the informer's host index, not a list of the namespace per association (H-1).
// A crash between record and claim leaves a record of an unclaimed host, which the next pass claims
// (or forgets, if someone else took it: phases/host.ts); a host claimed before the record existed
// (upstream CAPM3, a restore) is found first on the next pass (H-4, E-31).
// A record of a host nobody holds (that crash, or an annotation a user wrote) is no way around
// selection (M-40 changed): the record stands (and the host update claims the host) only when the
// host passes the selector and every filter selection applies; otherwise it is forgotten with a
// Warning event and the machine chooses anew (reviewRecord).
import { type Client, isNotFound } from '@metal3-ts/generated';
import type { Cluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { SecretResource } from '@metal3-ts/generated/core/v1';
import { type Metal3Machine, Metal3MachineResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { claimHost, readHost } from '@metal3-ts/baremetal/claim';
import { type HostConsumer, isClaimedBy, metal3MachineConsumer } from '@metal3-ts/baremetal/consumer';
import { hostKey } from '@metal3-ts/baremetal/host-patch';
import { InvalidHostSelectorError } from '@metal3-ts/baremetal/label-selector';
import { nodeReuseName } from '@metal3-ts/baremetal/node-reuse';
import { chooseHost, exclusionOf, exclusionText } from '@metal3-ts/baremetal/selection';
import { CrossNamespaceSecretError, metal3MachineProvisioning, provisionedHost } from '@metal3-ts/baremetal/provision';
import { provisioningState } from '@metal3-ts/baremetal/states';
import type { Logger } from '@metal3-ts/shared/log/logger';
import { type DataReferences, withReferences } from '../data-references.ts';
import { specDataSecrets } from '../host-spec.ts';
import type { MachineReconcilerDeps } from '../deps.ts';
import { InvalidConfigurationError } from '../errors.ts';
import { BMC_SECRET_LABELLED_ANNOTATION, CLUSTER_NAME_LABEL, HOST_ANNOTATION } from '../names.ts';
import type { Claimant } from '../scope.ts';
import { forgetHost, recordHost } from './host-record.ts';
import type { CachedMachine } from '../projections.ts';

export type AssociateOutcome =
  | {
    readonly kind: 'associated';
    readonly host: BareMetalHost;
    readonly choice: 'owned' | 'reused' | 'picked';
    /** The machine as this pass's last write of it left it (the record with our finalizer); undefined: not written. */
    readonly recorded: Metal3Machine | undefined;
    /** The BMC Secret label landed (M-26): the mark for the machine, see labelCredentials. */
    readonly labelled: string | undefined;
  }
  /**
   * The record names the free host selection would choose (a crash between record and claim): it
   * stands, and the host update claims it under the host's lock as on any pass (phases/host.ts).
   */
  | { readonly kind: 'kept' }
  /** Nothing to take now; `message` says what is awaited; `written`: the machine as a record removal left it. */
  | { readonly kind: 'waiting'; readonly message: string; readonly retrySoon: boolean; readonly written?: Metal3Machine | undefined }
  /** Another reconcile of the same machine (another replica) recorded a host first: look again soon. */
  | { readonly kind: 'lost'; readonly message: string };

/** N-3/N-4: the machine's reuse name, or undefined when it has none (then no reserved host matches, N-5). */
export function reuseNameOf(deps: Pick<MachineReconcilerDeps, 'informers'>, machine: Readonly<CachedMachine>): string | undefined {
  try {
    return nodeReuseName(machine, deps.informers.machineSets.store.list(machine.metadata.namespace));
  } catch {
    return undefined;
  }
}

/** The consumer the host selection works for. */
export function consumerOf(
  deps: Pick<MachineReconcilerDeps, 'informers'>,
  m3m: Readonly<Metal3Machine>,
  machine: Readonly<CachedMachine> | undefined,
): HostConsumer {
  return metal3MachineConsumer(m3m, machine ? reuseNameOf(deps, machine) : undefined);
}

/** Computed once per reconcile and handed to every phase that claims, keeps or releases a host. */
export function claimantOf(
  deps: Pick<MachineReconcilerDeps, 'informers'>,
  m3m: Readonly<Metal3Machine>,
  machine: Readonly<CachedMachine>,
  cluster: Readonly<Cluster>,
): Claimant {
  return { consumer: consumerOf(deps, m3m, machine), clusterName: machine.spec?.clusterName || cluster.metadata.name || '' };
}

function describeSelector(m3m: Readonly<Metal3Machine>): string {
  const selector = m3m.spec?.hostSelector;
  const parts = [
    ...Object.entries(selector?.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`),
    ...(selector?.matchExpressions ?? []).map((e) => `${e.key} ${e.operator} (${(e.values ?? []).join(',')})`),
  ];
  return parts.length > 0 ? `matching ${parts.join(', ')}` : 'in the namespace';
}

/** What association works with besides the machine: who claims, what it deploys, what was labelled. */
export interface AssociateInput {
  readonly claimant: Claimant;
  /** The data references of this pass (status.userData, M-23): what a claim without a data template provisions. */
  readonly refs: Readonly<DataReferences>;
  /** BMC Secrets labelled by this process, per machine (labelCredentials). */
  readonly labelled: Map<string, string>;
  /** Hosts (`namespace/name`) this process is recording and claiming now: picked last (ChooseHostOptions.avoid). */
  readonly claiming?: Set<string> | undefined;
  /** The unclaimed host the machine's annotation already names: see reviewRecord. */
  readonly recorded?: Readonly<BareMetalHost> | undefined;
  readonly log?: Logger | undefined;
}

/**
 * Chooses a host (section 2), records it on the machine (M-41, locked, with our finalizer:
 * host-record.ts), claims it (M-22, locked) with its provisioning in the same write, and labels its
 * BMC Secret (M-26). A claim lost to another machine removes the record again and asks to choose
 * again soon. Throws InvalidConfigurationError for an invalid host selector (H-3).
 */
export async function reconcileAssociate(deps: MachineReconcilerDeps, m3m: Metal3Machine, input: AssociateInput): Promise<AssociateOutcome> {
  const { recorded, log } = input;
  const { consumer } = input.claimant;
  let base: Readonly<Metal3Machine> = m3m;
  /** The machine as a removal of its record left it, if this pass removed one. */
  let forgotten: Metal3Machine | undefined;
  if (recorded) {
    const review = await selecting(() => reviewRecord(deps, m3m, consumer, recorded, log));
    if (review.kind !== 'forgotten') return review;
    base = forgotten = review.written;
  }
  const claiming = input.claiming;
  const avoid = claiming ? { avoid: (host: Readonly<BareMetalHost>) => claiming.has(hostKey(host)) } : {};
  const choice = await selecting(() =>
    chooseHost(deps.inventory.candidates(consumer), consumer, { ...(deps.random ? { random: deps.random } : {}), ...avoid })
  );
  switch (choice.outcome) {
    case 'none':
      return {
        kind: 'waiting',
        message: `No available host found: waiting for an available BareMetalHost ${describeSelector(m3m)}`,
        retrySoon: false,
        written: forgotten,
      };
    case 'reuse-pending':
      return {
        kind: 'waiting',
        written: forgotten,
        message: `Found BareMetalHost(s) with nodeReuseLabelName in not-available state: waiting for ${hostKey(choice.host)} (${
          provisioningState(choice.host) || 'no state'
        })`,
        retrySoon: false,
      };
    default:
      break;
  }
  const key = hostKey(choice.host);
  claiming?.add(key);
  try {
    return await recordAndClaim(deps, m3m, input, base, choice.host, choice.outcome);
  } finally {
    claiming?.delete(key);
  }
}

/** Records `host` on the machine (M-41, with our finalizer), claims it with its provisioning (M-22, M-25) and labels its BMC Secret (M-26). */
async function recordAndClaim(
  deps: MachineReconcilerDeps,
  m3m: Metal3Machine,
  input: AssociateInput,
  base: Readonly<Metal3Machine>,
  host: Readonly<BareMetalHost>,
  choice: 'owned' | 'reused' | 'picked',
): Promise<AssociateOutcome> {
  const { consumer, clusterName } = input.claimant;
  const api = deps.client.api(Metal3MachineResource, m3m.metadata.namespace);
  const key = hostKey(host);
  const record = await recordHost(api, base, key);
  if (!record) return { kind: 'lost', message: 'the Metal3Machine is gone' };
  if (record.host !== key) return { kind: 'lost', message: `BareMetalHost ${record.host} was recorded for this machine meanwhile` };
  const recordedNow = record.written ?? base;
  // Issue 20: the claim and the host's provisioning in one write, under the claim's lock (it was two
  // writes: claim here, provisioning in the host phase). Locked on the host's resourceVersion, so the
  // provisioning lands with the claim or not at all: never on a host another machine took. A crash
  // before it leaves the record of an unclaimed host, which the host phase claims and provisions in
  // that same one write (phases/host.ts); after it, a claimed and provisioned host the next pass finds
  // as it wants it. As upstream (M-22 step 6), a machine with a data template deploys only once its
  // data is rendered; its claim carries power and cleaning mode.
  const claim = await claimHost(deps.client, host, { consumer: consumer.ref, labels: { [CLUSTER_NAME_LABEL]: clusterName } }, {
    onWrite: (h) => deps.inventory.noteWrite(h),
    alongside: (claimed) => withProvisioning(claimed, m3m, input.refs),
  });
  if (!claim.claimed) {
    const written = await forgetHost(api, recordedNow, key);
    return { kind: 'waiting', message: `BareMetalHost ${key} was taken by another machine meanwhile; choosing again`, retrySoon: true, written };
  }
  m3m.metadata.annotations = { ...(m3m.metadata.annotations ?? {}), [HOST_ANNOTATION]: key };
  const labelled = await labelCredentials(deps.client, m3m, claim.host, clusterName, input.labelled);
  // Only a server copy: `base` may be the working copy, with changes no write has carried yet.
  const recorded = record.written ?? (base !== m3m ? (base as Metal3Machine) : undefined);
  return { kind: 'associated', host: claim.host, choice, recorded, labelled };
}

/**
 * The claimed host with what the machine asks of it (M-25): the deployment only without a data
 * template. A Secret reference into another namespace is left to the host phase, which says so
 * (invalid configuration) with the host claimed, as before the merge.
 */
function withProvisioning(claimed: BareMetalHost, m3m: Readonly<Metal3Machine>, refs: Readonly<DataReferences>): BareMetalHost {
  // The Secrets the spec names (M-35 steps 1-2) are the metadata phase's to record, which runs after
  // this one: the deployment, written once, must carry them already.
  const secrets = specDataSecrets(m3m);
  const provisioning = metal3MachineProvisioning(withReferences(m3m, { ...refs, ...secrets }));
  try {
    return provisionedHost(claimed, m3m.spec?.dataTemplate ? { ...provisioning, deployment: undefined } : provisioning);
  } catch (error) {
    if (error instanceof CrossNamespaceSecretError) return claimed;
    throw error;
  }
}

/** Runs a step of host selection, turning an invalid selector into invalid configuration (H-3). */
async function selecting<T>(step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof InvalidHostSelectorError) throw new InvalidConfigurationError(error.message, { cause: error });
    throw error;
  }
}

type Review = { readonly kind: 'kept' } | Extract<AssociateOutcome, { kind: 'lost' }> | { readonly kind: 'forgotten'; readonly written: Metal3Machine };

/**
 * M-40 (changed): a record of a host nobody holds stands only if the host passes the selector and
 * every filter of selection (H-2, H-3, H-5, H-6, H-8), or was this machine's before (its controller
 * owner reference carries this machine's uid: a claim removed by hand); then the host update claims
 * it under the host's lock. Otherwise the record is forgotten and the reason logged and told by a
 * Warning event. A machine that holds another host (H-4) forgets the record at once; any other
 * verdict against the record is confirmed on a fresh read first, since the cache may lag behind
 * another replica that recorded this very host and is claiming it.
 */
async function reviewRecord(
  deps: MachineReconcilerDeps,
  m3m: Metal3Machine,
  consumer: HostConsumer,
  recorded: Readonly<BareMetalHost>,
  log: Logger | undefined,
): Promise<Review> {
  const key = hostKey(recorded);
  const held = deps.inventory.ownedBy(consumer.ref)[0];
  let why: string | undefined;
  if (held) {
    why = `is not the host this machine holds (${hostKey(held)})`;
  } else {
    if (heldBefore(recorded, m3m) || !exclusionOf(recorded, consumer)) return { kind: 'kept' };
    const fresh = await readHost(deps.client, recorded);
    if (fresh && isClaimedBy(fresh, consumer.ref)) return { kind: 'lost', message: `BareMetalHost ${key} was claimed for this machine meanwhile` };
    const exclusion = fresh && exclusionOf(fresh, consumer);
    if (fresh && !exclusion) return { kind: 'kept' };
    why = fresh && exclusion ? exclusionText(exclusion, fresh) : 'does not exist';
  }
  const value = m3m.metadata.annotations?.[HOST_ANNOTATION] ?? '';
  const written = await forgetHost(deps.client.api(Metal3MachineResource, m3m.metadata.namespace), m3m, value);
  if (!written) return { kind: 'lost', message: 'the host record changed meanwhile' };
  // Told once: only the reconcile that removed the record gets here.
  const message = `Ignoring annotation ${HOST_ANNOTATION}: ${value}: BareMetalHost ${key} ${why}; choosing a host by the host selector instead`;
  log?.warn(message);
  deps.events?.warning(m3m, 'HostAnnotationIgnored', message);
  Object.assign(m3m.metadata, { annotations: written.metadata.annotations ?? {} });
  return { kind: 'forgotten', written };
}

/** The host names this machine (by uid) as its controller owner: it was claimed by this very object. */
function heldBefore(host: Readonly<BareMetalHost>, m3m: Readonly<Metal3Machine>): boolean {
  const uid = m3m.metadata.uid;
  return !!uid && (host.metadata.ownerReferences ?? []).some((ref) => ref.controller === true && ref.uid === uid && ref.kind === 'Metal3Machine');
}

/**
 * M-26: the BMC credentials Secret gets the cluster-name label, so `clusterctl move` moves it with the
 * cluster. A merge patch: no read of the Secret (its contents are none of our business).
 * Changed from upstream: asked on every pass, not only right after the claim, so a refused write
 * (403) is retried until it lands. Returns the mark saying it landed, for the machine's
 * BMC_SECRET_LABELLED_ANNOTATION, so a settled machine makes no request for it. Issue 20: the mark
 * costs no write of its own; it rides with the provider ID write (deriveStatus), and until then
 * `labelled` (this process's memory, per machine) spares the Secret a second patch. A process that
 * restarts in between labels once more: the same label, an idempotent write, nothing lost.
 * A missing Secret does not fail the association (E-10); there is nothing to move, and nothing is
 * marked, so a Secret created later is labelled too.
 */
export async function labelCredentials(
  client: Client,
  m3m: Readonly<Metal3Machine>,
  host: Readonly<BareMetalHost>,
  clusterName: string,
  labelled: Map<string, string>,
): Promise<string | undefined> {
  const name = host.spec?.bmc?.credentialsName;
  if (!name) return undefined;
  const mark = `${hostKey(host)}/${name}`;
  if (m3m.metadata.annotations?.[BMC_SECRET_LABELLED_ANNOTATION] === mark) return undefined;
  const machine = `${m3m.metadata.namespace ?? ''}/${m3m.metadata.name ?? ''}`;
  if (labelled.get(machine) === mark) return mark;
  try {
    await client.api(SecretResource, host.metadata.namespace).mergePatch(name, { metadata: { labels: { [CLUSTER_NAME_LABEL]: clusterName } } });
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
  labelled.set(machine, mark);
  return mark;
}
