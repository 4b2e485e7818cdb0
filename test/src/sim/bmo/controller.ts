// The thin I/O around nextHostStatus: read the host and its BMC Secret from the informers, ask the
// state machine, write what it says (finalizers with guarded JSON patches, annotations and status
// through the patch helper, the status with an optimistic lock as BMO's Update has), requeue.
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { type Secret, SecretResource } from '@metal3-ts/generated/core/v1';
import { controllerFor } from '@metal3-ts/shared/controller/builder';
import type { Predicate } from '@metal3-ts/shared/controller/predicates';
import type { Runnable } from '@metal3-ts/shared/manager/runnable';
import { ensureFinalizer, removeFinalizerGuarded } from '@metal3-ts/shared/meta/ensure-finalizer';
import { PatchHelper } from '@metal3-ts/shared/patch/patch-helper';
import { deepEqual } from '@metal3-ts/shared/patch/diff';
import type { ReconcileContext, Request, Result } from '@metal3-ts/shared/reconcile/reconcile';
import type { SimulatorDeps } from '../simulator.ts';
import { BMO_FINALIZER } from './names.ts';
import { type HostStep, nextHostStatus } from './state-machine.ts';
import { type BmoSpeed, type BmoTimings, resolveTimings } from './timings.ts';

export interface BmoOptions {
  /** `instant` (default): every transition on the next reconcile. `bmoTestMode`: BMO test-mode delays. */
  readonly speed?: BmoSpeed;
  /** Overrides of the speed's timings (tests use e.g. `{ provisioningMs: 300 }`). */
  readonly timings?: Partial<BmoTimings>;
  /** The wall clock for status timestamps and operation durations (default: the system clock). */
  readonly now?: () => Date;
  /** Parallel reconciles (BMO: the number of CPUs, at most 8). Default 4. */
  readonly maxConcurrentReconciles?: number;
}

const CREDENTIALS_INDEX = 'bmo.credentialsSecret';

const secretKey = (namespace: string | undefined, name: string): string => `${namespace ?? ''}/${name}`;

/**
 * BMO's event filter: its own status writes do not wake it. Spec changes (generation), annotations,
 * finalizers and the start of deletion do.
 */
export const hostChanges: Predicate<BareMetalHost> = {
  update: (old, obj) =>
    old.metadata.generation !== obj.metadata.generation ||
    old.metadata.deletionTimestamp !== obj.metadata.deletionTimestamp ||
    !deepEqual(old.metadata.annotations ?? {}, obj.metadata.annotations ?? {}) ||
    !deepEqual(old.metadata.finalizers ?? [], obj.metadata.finalizers ?? []),
};

/** The simulated baremetal-operator: one controller that owns BareMetalHost status. */
export function bmoSimulator(deps: SimulatorDeps, options: BmoOptions = {}): Runnable[] {
  const timings = resolveTimings(options.speed, options.timings);
  const now = options.now ?? (() => new Date());
  const hosts = deps.informers.informerFor(BareMetalHostResource);
  const secrets = deps.informers.informerFor(SecretResource);
  hosts.addIndex(CREDENTIALS_INDEX, (host) => {
    const name = host.spec?.bmc?.credentialsName;
    return name ? [secretKey(host.metadata.namespace, name)] : [];
  });

  async function apply(host: Readonly<BareMetalHost>, step: HostStep): Promise<void> {
    const api = deps.client.api(BareMetalHostResource, host.metadata.namespace);
    if (step.addFinalizer) await ensureFinalizer(api, host as BareMetalHost, BMO_FINALIZER);
    if (step.removeFinalizer) await removeFinalizerGuarded(api, host as BareMetalHost, BMO_FINALIZER);
    if (!step.status && !step.removeAnnotations) return;
    const helper = new PatchHelper(host as BareMetalHost, api);
    const changed = structuredClone(host) as BareMetalHost;
    for (const key of step.removeAnnotations ?? []) delete changed.metadata.annotations?.[key];
    if (step.status) changed.status = step.status;
    await helper.patch(changed, { optimisticLock: true });
  }

  async function reconcile(request: Request, context: ReconcileContext): Promise<Result> {
    const host = hosts.store.get(request);
    if (!host) return {};
    const credentialsName = host.spec?.bmc?.credentialsName;
    const bmcSecret: Readonly<Secret> | undefined = credentialsName
      ? secrets.store.get({ namespace: host.metadata.namespace, name: credentialsName })
      : undefined;
    const step = nextHostStatus(host, now(), timings, { bmcSecret });
    if (!step) return {};
    context.log.info(step.reason, { state: step.status?.provisioning.state ?? host.status?.provisioning?.state ?? '' });
    await apply(host, step);
    return step.requeueAfterMs ? { requeueAfterMs: step.requeueAfterMs } : {};
  }

  const controller = controllerFor('bmo', BareMetalHostResource, deps)
    .withPredicates(hostChanges)
    .watches(
      SecretResource,
      (secret) =>
        hosts.store.byIndex(CREDENTIALS_INDEX, secretKey(secret.metadata.namespace, secret.metadata.name ?? '')).map((h) => ({
          namespace: h.metadata.namespace ?? '',
          name: h.metadata.name ?? '',
        })),
    )
    .withOptions({ maxConcurrentReconciles: options.maxConcurrentReconciles ?? 4 })
    .build(reconcile);
  return [controller];
}
