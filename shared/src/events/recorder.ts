// Kubernetes Events (core/v1) about the objects a controller reconciles, as client-go's recorder
// writes them: one Event per (object, type, reason, message), and repeats bump its `count` and
// `lastTimestamp` instead of creating new Events. A reconcile that fails the same way every few
// seconds therefore produces one Event with a growing count, not an event storm. At most one write
// per distinct event is in flight; repeats during a write fold into the next patch.
//
// Recording never blocks and never fails a reconcile: writes happen in the background and errors are
// only logged. Messages are visible to anyone who can list Events in the namespace: callers must
// never put Secret contents (passwords, tokens, userData, kubeconfigs) in a reason or message.
import { type Client, type KubeObject, NotFoundError, type ObjectReference } from '@metal3-ts/generated';
import { type Event, EventResource, newEvent } from '@metal3-ts/generated/core/v1';
import { describeRefusal, refusalOf } from '../controller/refusal.ts';
import { type Logger, silentLogger } from '../log/logger.ts';
import { MAX_DNS_NAME_LENGTH } from '../meta/dns.ts';

export type EventType = 'Normal' | 'Warning';

export const MAX_MESSAGE_LENGTH = 1024;
const MAX_REASON_LENGTH = 128;

export interface EventRecorderOptions {
  readonly client: Client;
  /** Who reports: `source.component` and `reportingComponent` (e.g. `metal3machine-controller`). */
  readonly component: string;
  /** `reportingInstance` and `source.host`, e.g. the pod name or leader identity. */
  readonly instance?: string;
  readonly log?: Logger;
  /** Distinct events remembered for aggregation (least recently used are forgotten). Default 4096. */
  readonly cacheSize?: number;
  /** Wall clock for timestamps and event names, for tests. */
  readonly now?: () => Date;
}

interface Entry {
  readonly key: string;
  readonly namespace: string;
  readonly event: Event;
  /** Set once the Event exists on the server. */
  name: string | undefined;
  count: number;
  last: Date;
  writing: Promise<void> | undefined;
  dirty: boolean;
}

export class EventRecorder {
  readonly component: string;
  readonly #client: Client;
  readonly #instance: string | undefined;
  readonly #log: Logger;
  readonly #cacheSize: number;
  readonly #now: () => Date;
  readonly #entries = new Map<string, Entry>();
  #sequence = 0;

  constructor(options: EventRecorderOptions) {
    this.#client = options.client;
    this.component = options.component;
    this.#instance = options.instance;
    this.#log = (options.log ?? silentLogger).with({ component: options.component });
    this.#cacheSize = options.cacheSize ?? 4096;
    this.#now = options.now ?? (() => new Date());
  }

  normal(object: Readonly<KubeObject>, reason: string, message: string): void {
    this.event(object, 'Normal', reason, message);
  }

  warning(object: Readonly<KubeObject>, reason: string, message: string): void {
    this.event(object, 'Warning', reason, message);
  }

  /** Records an event about `object`. Never throws; the write happens in the background. */
  event(object: Readonly<KubeObject>, type: EventType, reason: string, message: string): void {
    try {
      const reference = referenceTo(object);
      const text = truncate(message, MAX_MESSAGE_LENGTH);
      const why = truncate(reason, MAX_REASON_LENGTH);
      const key = JSON.stringify([reference.apiVersion, reference.kind, reference.namespace ?? '', reference.name, reference.uid ?? '', type, why, text]);
      const now = this.#now();
      let entry = this.#entries.get(key);
      if (entry) {
        this.#entries.delete(key); // re-insert: most recently used last
        entry.count++;
        entry.last = now;
      } else {
        entry = this.#newEntry(key, reference, type, why, text, now);
      }
      this.#entries.set(key, entry);
      this.#log.debug('event', { type, reason: why, object: `${reference.kind} ${reference.namespace ?? ''}/${reference.name}`, message: text });
      this.#schedule(entry);
      this.#evict();
    } catch (error) {
      this.#log.error('cannot record event', { reason, error });
    }
  }

  /** Resolves when every write started so far has finished (tests, and shutdown). */
  async flush(): Promise<void> {
    for (;;) {
      const writing = [...this.#entries.values()].map((e) => e.writing).filter((w) => w !== undefined);
      if (writing.length === 0) return;
      await Promise.all(writing);
    }
  }

  #newEntry(key: string, reference: ObjectReference, type: EventType, reason: string, message: string, now: Date): Entry {
    // Cluster-scoped objects' events live in `default`, as client-go puts them.
    const namespace = reference.namespace || 'default';
    const event = newEvent({
      metadata: { namespace },
      involvedObject: reference,
      type,
      reason,
      message,
      source: { component: this.component, ...(this.#instance ? { host: this.#instance } : {}) },
      reportingComponent: this.component,
      ...(this.#instance ? { reportingInstance: this.#instance } : {}),
    });
    return { key, namespace, event, name: undefined, count: 1, last: now, writing: undefined, dirty: false };
  }

  #schedule(entry: Entry): void {
    if (entry.writing) {
      entry.dirty = true;
      return;
    }
    entry.writing = this.#write(entry).finally(() => {
      entry.writing = undefined;
      this.#evict();
    });
  }

  async #write(entry: Entry): Promise<void> {
    do {
      entry.dirty = false;
      const api = this.#client.api(EventResource, entry.namespace);
      try {
        if (entry.name) {
          await api.mergePatch(entry.name, { count: entry.count, lastTimestamp: timestamp(entry.last) });
          continue;
        }
      } catch (error) {
        if (!(error instanceof NotFoundError)) {
          this.#writeFailed('cannot update event', entry, error);
          continue;
        }
        // The Event expired (the apiserver deletes them after an hour): start a new one.
        entry.name = undefined;
        entry.count = 1;
      }
      const name = this.#eventName(entry.event.involvedObject.name ?? 'unknown');
      const first = timestamp(entry.last);
      try {
        const created = await api.create({
          ...entry.event,
          metadata: { ...entry.event.metadata, name },
          count: entry.count,
          firstTimestamp: first,
          lastTimestamp: first,
        });
        entry.name = created.metadata.name;
      } catch (error) {
        this.#writeFailed('cannot create event', entry, error);
      }
    } while (entry.dirty);
  }

  /** A refused write (RBAC lost `create` or `patch` on events) is an error: no event will get through until someone acts. */
  #writeFailed(what: string, entry: Entry, error: unknown): void {
    const refusal = refusalOf(error);
    if (refusal) this.#log.error(what, { event: entry.name, reason: entry.event.reason, refused: describeRefusal(refusal) });
    else this.#log.warn(what, { event: entry.name, reason: entry.event.reason, error });
  }

  /** `<object>.<hex nanoseconds>`, unique per recorder, as client-go names events. */
  #eventName(objectName: string): string {
    const nanos = BigInt(this.#now().getTime()) * 1_000_000n + BigInt(this.#sequence++ % 1_000_000);
    const suffix = `.${nanos.toString(16)}`;
    return objectName.slice(0, MAX_DNS_NAME_LENGTH - suffix.length) + suffix;
  }

  #evict(): void {
    for (const [key, entry] of this.#entries) {
      if (this.#entries.size <= this.#cacheSize) return;
      if (!entry.writing) this.#entries.delete(key);
    }
  }
}

/** The involvedObject reference for an object (kind and apiVersion from the object itself). */
export function referenceTo(object: Readonly<KubeObject>): ObjectReference {
  const m = object.metadata;
  if (!m.name) throw new Error(`cannot record an event for a ${object.kind} without a name`);
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    name: m.name,
    ...(m.namespace ? { namespace: m.namespace } : {}),
    ...(m.uid ? { uid: m.uid } : {}),
    ...(m.resourceVersion ? { resourceVersion: m.resourceVersion } : {}),
  };
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max - 3) + '...';
}

/** metav1.Time: RFC 3339 in whole seconds. */
function timestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
