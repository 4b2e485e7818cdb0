// Writes claims' entries into their template's status, grouped: entries that arrive while a write
// for the same template is in flight go out together in the next one (group commit). A storm of
// claims on one template therefore costs a handful of template writes per round trip instead of one
// per claim, and nothing waits on a timer. Each caller's promise settles when the write carrying its
// entry has been acknowledged (or failed: the caller's reconcile then retries).
import { setImmediate } from 'node:timers';
import type { Client } from '@metal3-ts/generated';
import { isNotFound } from '@metal3-ts/generated/runtime/errors';
import { Metal3DataTemplateResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { templateKey } from './association.ts';
import { type LedgerEntry, ledgerPatch } from './template-status.ts';

interface Batch {
  readonly entries: Map<string, LedgerEntry>;
  readonly waiters: { resolve: () => void; reject: (error: unknown) => void }[];
}

interface TemplateQueue {
  /** Entries waiting for the next write. */
  next?: Batch;
  inFlight: boolean;
}

export class TemplateLedgerWriter {
  readonly #client: Client;
  readonly #now: () => Date;
  readonly #queues = new Map<string, TemplateQueue>();

  constructor(client: Client, now: () => Date = () => new Date()) {
    this.#client = client;
    this.#now = now;
  }

  /** The entry for `claim` waiting to be written to that template, if any (undefined: none). */
  pending(namespace: string, template: string, claim: string): LedgerEntry | undefined {
    return this.#queues.get(templateKey(namespace, template))?.next?.entries.get(claim);
  }

  /** Records `entry` for `claim` on the template; resolves once written. A template that is gone is not an error. */
  write(namespace: string, template: string, claim: string, entry: LedgerEntry): Promise<void> {
    const key = templateKey(namespace, template);
    let queue = this.#queues.get(key);
    if (!queue) this.#queues.set(key, queue = { inFlight: false });
    const batch: Batch = (queue.next ??= { entries: new Map(), waiters: [] });
    batch.entries.set(claim, entry);
    const done = new Promise<void>((resolve, reject) => batch.waiters.push({ resolve, reject }));
    if (!queue.inFlight) void this.#drain(key, namespace, template, queue);
    return done;
  }

  async #drain(key: string, namespace: string, template: string, queue: TemplateQueue): Promise<void> {
    queue.inFlight = true;
    // Let the reconciles that are running now add their entries to this write.
    await new Promise((resolve) => setImmediate(resolve));
    while (queue.next) {
      const batch = queue.next;
      delete queue.next;
      try {
        await this.#client.api(Metal3DataTemplateResource, namespace).mergePatchStatus(template, ledgerPatch(batch.entries, this.#now()));
        for (const w of batch.waiters) w.resolve();
      } catch (error) {
        if (isNotFound(error)) { for (const w of batch.waiters) w.resolve(); }
        else for (const w of batch.waiters) w.reject(error);
      }
    }
    queue.inFlight = false;
    this.#queues.delete(key);
  }
}
