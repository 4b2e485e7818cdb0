// The serving certificate and key, read from files (the mounted cert-manager Secret: tls.crt, tls.key)
// and read again when they change, so a rotation reaches new TLS handshakes without a restart.
// Kubelet swaps a Secret volume's files atomically (a `..data` symlink), so polling the contents is
// enough and works on every filesystem; inotify on the symlink target would not. A pair that fails to
// load (missing file, cert and key not matching mid-update) never replaces the pair in use: the
// watcher keeps serving the last good one and says why in `problem` (readiness shows it) and the log.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import type { Logger } from '@metal3-ts/shared/log/logger';

export interface ServingFiles {
  readonly certFile: string;
  readonly keyFile: string;
}

export interface ServingPair {
  readonly cert: string;
  readonly key: string;
  /** sha256 of cert and key, to tell a change (never logged with the key's bytes, only this digest's head). */
  readonly digest: string;
}

export class CertificateError extends Error {
  override name = 'CertificateError';
}

/** Reads and checks one pair: both files present, PEM, and the key matching the certificate. */
export function readServingPair(files: ServingFiles): ServingPair {
  const read = (path: string, what: string) => {
    try {
      return readFileSync(path, 'utf8');
    } catch (error) {
      throw new CertificateError(`${what} ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  };
  const cert = read(files.certFile, 'certificate');
  const key = read(files.keyFile, 'key');
  try {
    createSecureContext({ cert, key });
  } catch (error) {
    // OpenSSL's reason (e.g. "key values mismatch", "no start line"), never the PEM itself.
    throw new CertificateError(`${files.certFile} and ${files.keyFile}: ${(error as Error).message}`);
  }
  return { cert, key, digest: createHash('sha256').update(cert).update('\0').update(key).digest('hex') };
}

export interface WatcherOptions {
  readonly intervalMs: number;
  readonly log: Logger;
  /** Called with every new good pair after the first. */
  readonly onChange: (pair: ServingPair) => void;
}

export class CertificateWatcher {
  readonly #files: ServingFiles;
  readonly #options: WatcherOptions;
  #pair: ServingPair | undefined;
  #problem: string | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  readonly #firstPair: { resolve: (p: ServingPair) => void; promise: Promise<ServingPair> };

  constructor(files: ServingFiles, options: WatcherOptions) {
    this.#files = files;
    this.#options = options;
    let resolve!: (p: ServingPair) => void;
    this.#firstPair = { promise: new Promise<ServingPair>((r) => (resolve = r)), resolve };
  }

  /** The pair in use, once one has loaded. */
  get current(): ServingPair | undefined {
    return this.#pair;
  }

  /** Why the files could not be (re)loaded at the last look; undefined when they could. */
  get problem(): string | undefined {
    return this.#problem;
  }

  /** Resolves with the first good pair (the server starts serving then). */
  get ready(): Promise<ServingPair> {
    return this.#firstPair.promise;
  }

  /** Loads now and then every interval; a failed load is retried, never fatal. */
  start(): void {
    this.check();
    this.#timer = setInterval(() => this.check(), this.#options.intervalMs);
    this.#timer.unref?.();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** One look at the files (also what the timer does). */
  check(): void {
    let pair: ServingPair;
    try {
      pair = readServingPair(this.#files);
    } catch (error) {
      const problem = (error as Error).message;
      if (problem !== this.#problem && this.#pair) {
        this.#options.log.warn('serving certificate could not be reloaded; still serving the previous one', { problem });
      } else if (problem !== this.#problem) this.#options.log.info('waiting for the serving certificate', { problem });
      this.#problem = problem;
      return;
    }
    this.#problem = undefined;
    if (pair.digest === this.#pair?.digest) return;
    const first = this.#pair === undefined;
    this.#pair = pair;
    this.#options.log.info(first ? 'serving certificate loaded' : 'serving certificate reloaded', { digest: pair.digest.slice(0, 12) });
    if (first) this.#firstPair.resolve(pair);
    else this.#options.onChange(pair);
  }
}
