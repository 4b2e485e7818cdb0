// Snapshot on entry, patch once on exit (Cluster API util/patch): a reconcile mutates its copy of the
// object freely and the helper sends only what changed, each part where it belongs.
import type { Api, KubeObject, MergePatch } from '@metal3-ts/generated';
import { isConflict, isNotFound } from '@metal3-ts/generated/runtime/errors';
import { type ConflictBackoff, retryOnConflict } from '../controller/retry-on-conflict.ts';
import { applyConditionChanges, v1beta1Dialect, v1beta2Dialect } from '../conditions/patch.ts';
import { deepEqual, type JsonMap, mergePatches } from './diff.ts';
import { isEmptyPlan, type PatchPlan, planPatch, withOwnedConditions } from './plan.ts';

/** The part of Api<T> the helper uses; any Api<T> bound to the object's namespace fits. */
export type PatchApi<T extends KubeObject> = Pick<Api<T>, 'descriptor' | 'namespace' | 'get' | 'mergePatch' | 'mergePatchStatus'>;

export interface PatchHelperOptions<T extends KubeObject> {
  /** Called with every object the server returns from a write (read-your-own-writes feed). */
  readonly onWrite?: (written: T) => void;
}

export interface PatchOptions {
  /**
   * Condition types (either dialect) this writer owns: when another writer changed one of them
   * since the snapshot, ours wins instead of failing with a conflict.
   */
  readonly ownedConditions?: readonly string[];
  /**
   * Base the metadata/spec and status writes on the snapshot's resourceVersion: if anyone else wrote
   * the object since, the patch fails with a ConflictError instead of merging over their change.
   * (The condition write is always resourceVersion-guarded and retried; see `patch`.)
   */
  readonly optimisticLock?: boolean;
}

/** How often the condition write re-reads and re-merges after a 409 before giving up. */
export const CONDITION_WRITE_ATTEMPTS = 5;
/**
 * The wait before each of those re-reads: 10, 50, 250, 1 250 ms (± 10 %), client-go's default
 * conflict backoff. Without it two writers of one object (replicas racing without leader election)
 * re-read straight into each other's next write and ran out of attempts under load.
 */
export const CONDITION_WRITE_BACKOFF: ConflictBackoff = { initialMs: 10, factor: 5, jitter: 0.1 };

/** Every failure of one `patch` call; `errors` holds the typed causes (ConflictError, …). */
export class PatchError extends AggregateError {
  override name = 'PatchError';
}

type Target = 'main' | 'status';

interface ConditionStatus {
  status?: { conditions?: unknown[]; v1beta2?: { conditions?: unknown[] } };
}

/**
 * Sends the difference between a snapshot and the modified object.
 *
 * Guarantees:
 * - Nothing changed: no request at all.
 * - Writable metadata (labels, annotations, finalizers, ownerReferences) and spec go as one JSON
 *   merge patch on the resource; removed keys are sent as `null`, arrays whole.
 * - Status goes through `/status` (kinds without the subresource: in the main patch).
 * - Condition lists (`status.conditions`, `status.v1beta2.conditions`) are merged three-way: only the
 *   conditions this helper added, changed or removed are applied on top of the server's current
 *   list, in a write carrying that list's resourceVersion; on 409 the helper re-reads and re-merges,
 *   up to CONDITION_WRITE_ATTEMPTS times. Other writers' conditions survive. A list with changes
 *   also gets every owned condition in its desired state (withOwnedConditions), so a summary never
 *   lands without the inputs it was computed from.
 *
 * Errors: a PatchError aggregating every failed part (ConflictError, ConditionConflictError,
 * RetryExhaustedError, …). A
 * NotFound on the status write of an object whose last finalizer this patch removed is not an error.
 */
export class PatchHelper<T extends KubeObject> {
  readonly #api: PatchApi<T>;
  readonly #onWrite: ((written: T) => void) | undefined;
  /** The caller's view at the last successful patch: what the next diff is taken against. */
  #before: T;
  /** The newest object the server returned (or the snapshot): conditions and resourceVersion agree. */
  #server: T;

  constructor(obj: T, api: PatchApi<T>, options: PatchHelperOptions<T> = {}) {
    if (!obj.metadata.name) throw new Error(`${api.descriptor.kind}: cannot patch an object without a name`);
    if (api.descriptor.namespaced && api.namespace !== obj.metadata.namespace) {
      throw new Error(`${api.descriptor.kind} ${obj.metadata.name}: the Api must be bound to the object's namespace ${obj.metadata.namespace ?? '(none)'}`);
    }
    this.#api = api;
    this.#onWrite = options.onWrite;
    this.#before = structuredClone(obj);
    this.#server = this.#before;
  }

  /** Persists the changes made to `obj` since the snapshot; returns the last object written, if any. */
  async patch(obj: T, options: PatchOptions = {}): Promise<T | undefined> {
    const planned = planPatch(this.#before, obj, this.#api.descriptor.statusSubresource);
    if (isEmptyPlan(planned)) return undefined;
    const lock = options.optimisticLock === true;
    const owned = new Set(options.ownedConditions ?? []);
    const plan = withOwnedConditions(planned, obj, owned);
    const conditionsChanged = plan.conditions.length > 0 || plan.v1beta2Conditions.length > 0;
    const subresource = this.#api.descriptor.statusSubresource;
    const errors: unknown[] = [];
    let last: T | undefined;
    const record = (written: T | undefined) => {
      if (!written) return;
      last = written;
      this.#server = written;
      this.#onWrite?.(written);
    };

    // The main resource goes first: with a lock it is judged against the snapshot's
    // resourceVersion, which our own status write would otherwise move.
    if (plan.main || (!subresource && conditionsChanged)) {
      try {
        record(
          conditionsChanged && !subresource
            ? await this.#writeWithConditions('main', plan.main, plan, owned, lock)
            : await this.#send('main', lock ? this.#withResourceVersion(plan.main) : plan.main),
        );
      } catch (error) {
        errors.push(error);
        if (lock) throw this.#error(errors);
      }
    }
    if (subresource && (plan.status || conditionsChanged)) {
      try {
        record(
          conditionsChanged
            ? await this.#writeWithConditions('status', plan.status, plan, owned, lock)
            : await this.#send('status', lock ? this.#withResourceVersion(plan.status) : plan.status),
        );
      } catch (error) {
        if (!(isNotFound(error) && obj.metadata.deletionTimestamp && !obj.metadata.finalizers?.length)) errors.push(error);
      }
    }
    if (errors.length > 0) throw this.#error(errors);
    this.#before = structuredClone(obj);
    return last;
  }

  /**
   * Sends `fields` plus the merged condition lists, guarded by the resourceVersion the merge was
   * based on. A 409 means the server's lists moved: re-read, re-merge, retry (RetryExhaustedError
   * after CONDITION_WRITE_ATTEMPTS). With a lock and other fields in the write, a 409 is final:
   * those fields were based on a stale snapshot.
   */
  #writeWithConditions(target: Target, fields: JsonMap | undefined, plan: PatchPlan, owned: ReadonlySet<string>, lock: boolean): Promise<T | undefined> {
    return retryOnConflict(
      this.#server,
      async (current) => {
        const body = mergePatches(fields, mergedConditions(current, plan, owned));
        // The server already holds exactly our conditions and nothing else is to be written.
        if (!body) return undefined;
        return await this.#send(target, this.#withResourceVersion(body, current));
      },
      {
        what: `${this.#key}: the ${target === 'main' ? 'metadata/spec' : 'status'} write with merged conditions`,
        reread: () => this.#api.get(this.#name),
        attempts: CONDITION_WRITE_ATTEMPTS,
        backoff: CONDITION_WRITE_BACKOFF,
        retryable: (error) => isConflict(error) && !(lock && fields),
        // A 404 is the caller's to judge (patch: an object whose last finalizer went is no error).
        notFoundThrows: true,
      },
    );
  }

  #send(target: Target, body: JsonMap | undefined): Promise<T> {
    const patch = (body ?? {}) as MergePatch<T>;
    return target === 'main' ? this.#api.mergePatch(this.#name, patch) : this.#api.mergePatchStatus(this.#name, patch);
  }

  #withResourceVersion(body: JsonMap | undefined, basis: T = this.#server): JsonMap | undefined {
    const resourceVersion = basis.metadata.resourceVersion;
    return resourceVersion ? mergePatches(body, { metadata: { resourceVersion } }) : body;
  }

  get #name(): string {
    return this.#before.metadata.name!;
  }

  /** `Kind namespace/name` of the patched object. */
  get #key(): string {
    const { kind } = this.#api.descriptor;
    return this.#before.metadata.namespace ? `${kind} ${this.#before.metadata.namespace}/${this.#name}` : `${kind} ${this.#name}`;
  }

  #error(errors: unknown[]): PatchError {
    const detail = errors.map((e) => (e instanceof Error ? e.message : String(e))).join('; ');
    return new PatchError(errors, `failed to patch ${this.#key}: ${detail}`);
  }
}

/**
 * This helper's condition changes applied to `current`'s lists, as a status merge patch holding each
 * list that differs from the server's (whole, since merge patches replace arrays).
 */
function mergedConditions(current: KubeObject, plan: PatchPlan, owned: ReadonlySet<string>): JsonMap | undefined {
  const status = (current as KubeObject & ConditionStatus).status;
  const patch: JsonMap = {};
  if (plan.conditions.length > 0) {
    const latest = (status?.conditions ?? []) as Parameters<typeof v1beta1Dialect.sort>[0];
    const merged = applyConditionChanges(latest, plan.conditions, v1beta1Dialect, owned);
    if (!deepEqual(merged, latest)) patch['conditions'] = merged.length > 0 ? (merged as unknown as JsonMap[]) : null;
  }
  if (plan.v1beta2Conditions.length > 0) {
    const latest = (status?.v1beta2?.conditions ?? []) as Parameters<typeof v1beta2Dialect.sort>[0];
    const merged = applyConditionChanges(latest, plan.v1beta2Conditions, v1beta2Dialect, owned);
    if (!deepEqual(merged, latest)) patch['v1beta2'] = { conditions: merged.length > 0 ? (merged as unknown as JsonMap[]) : null };
  }
  return Object.keys(patch).length > 0 ? { status: patch } : undefined;
}
