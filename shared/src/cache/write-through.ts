// Read your own writes without asking every caller to remember it: a Client whose Apis hand every
// write response to the informer of that kind (if the process caches it), so the next reconcile reads
// what this process just wrote instead of an older cached copy. Reads are unchanged: they still go to
// the apiserver through this client, or to the informers' stores.
import { Api, Client, type KubeObject, type ResourceDescriptor, type Status, type Transport } from '@metal3-ts/generated';
import type { DeleteOptions } from '@metal3-ts/generated';
import type { Informer, ObjectKey } from './types.ts';

/** What a written object is handed to: the informer (or informers) of its kind. */
export type WriteNotes<T extends KubeObject> = Pick<Informer<T>, 'noteWrite' | 'noteDelete'>;

/** Where written objects go: the informers of their kind, when the process has any. */
export interface WrittenObjectSink {
  existing<T extends KubeObject>(descriptor: ResourceDescriptor<T>): WriteNotes<T> | undefined;
}

export class WriteThroughClient extends Client {
  readonly #sink: WrittenObjectSink;

  constructor(transport: Transport, sink: WrittenObjectSink) {
    super(transport);
    this.#sink = sink;
  }

  override api<T extends KubeObject>(descriptor: ResourceDescriptor<T>, namespace?: string): Api<T> {
    return new WriteThroughApi(this.transport, descriptor, descriptor.namespaced ? namespace : undefined, this.#sink);
  }

  override all<T extends KubeObject>(descriptor: ResourceDescriptor<T>): Api<T> {
    return new WriteThroughApi(this.transport, descriptor, undefined, this.#sink);
  }
}

class WriteThroughApi<T extends KubeObject> extends Api<T> {
  readonly #sink: WrittenObjectSink;

  constructor(transport: Transport, descriptor: ResourceDescriptor<T>, namespace: string | undefined, sink: WrittenObjectSink) {
    super(transport, descriptor, namespace);
    this.#sink = sink;
  }

  // A dry run changed nothing on the server: its response must not shadow the cache.
  #noting(args: readonly unknown[]): (written: T) => T {
    const dryRun = args.some((a) => typeof a === 'object' && a !== null && (a as { dryRun?: unknown }).dryRun === true);
    return (written) => {
      if (!dryRun) this.#sink.existing(this.descriptor)?.noteWrite(written);
      return written;
    };
  }

  override create(...args: Parameters<Api<T>['create']>): Promise<T> {
    return super.create(...args).then(this.#noting(args));
  }
  override replace(...args: Parameters<Api<T>['replace']>): Promise<T> {
    return super.replace(...args).then(this.#noting(args));
  }
  override mergePatch(...args: Parameters<Api<T>['mergePatch']>): Promise<T> {
    return super.mergePatch(...args).then(this.#noting(args));
  }
  override jsonPatch(...args: Parameters<Api<T>['jsonPatch']>): Promise<T> {
    return super.jsonPatch(...args).then(this.#noting(args));
  }
  override apply(...args: Parameters<Api<T>['apply']>): Promise<T> {
    return super.apply(...args).then(this.#noting(args));
  }
  override replaceStatus(...args: Parameters<Api<T>['replaceStatus']>): Promise<T> {
    return super.replaceStatus(...args).then(this.#noting(args));
  }
  override mergePatchStatus(...args: Parameters<Api<T>['mergePatchStatus']>): Promise<T> {
    return super.mergePatchStatus(...args).then(this.#noting(args));
  }
  override jsonPatchStatus(...args: Parameters<Api<T>['jsonPatchStatus']>): Promise<T> {
    return super.jsonPatchStatus(...args).then(this.#noting(args));
  }
  override applyStatus(...args: Parameters<Api<T>['applyStatus']>): Promise<T> {
    return super.applyStatus(...args).then(this.#noting(args));
  }

  /** A delete answered with the object (finalizers pending) is a write; a Status means it is gone. */
  override async delete(name: string, options?: DeleteOptions): Promise<T | Status> {
    const result = await super.delete(name, options);
    const informer = this.#sink.existing(this.descriptor);
    if (!informer || options?.dryRun) return result;
    if ((result as KubeObject).kind === this.descriptor.kind) informer.noteWrite(result as T);
    else informer.noteDelete({ name, ...(this.namespace ? { namespace: this.namespace } : {}) } satisfies ObjectKey);
    return result;
  }
}
