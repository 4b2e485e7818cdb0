// The host annotation (M-41) as the machine's one record of its host, written before the host is
// claimed and locked on the machine's resourceVersion: of two reconciles of the same machine (two
// replicas), only the first to record may claim, so one machine never holds two hosts. Removing the
// record is locked the same way and only removes the value it was asked to.
import { isConflict, isNotFound, type Api } from '@metal3-ts/generated';
import type { Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { HOST_ANNOTATION } from '../names.ts';

const ATTEMPTS = 5;

/**
 * Runs `write` on `m3m`, then on a fresh copy after each conflict, up to ATTEMPTS times; undefined
 * once the machine is gone (at the write or at the re-read).
 */
async function onFreshCopy<R>(api: Api<Metal3Machine>, m3m: Readonly<Metal3Machine>, what: string, write: (current: Readonly<Metal3Machine>) => Promise<R>): Promise<R | undefined> {
  const name = m3m.metadata.name ?? '';
  let current: Readonly<Metal3Machine> = m3m;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    try {
      if (attempt > 0) current = await api.get(name);
      return await write(current);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      if (!isConflict(error)) throw error;
    }
  }
  throw new Error(`Metal3Machine ${m3m.metadata.namespace ?? ''}/${name} kept changing while ${what}`);
}

/**
 * Records `host` (`<namespace>/<name>`) unless the machine records another host already. Returns the
 * host recorded afterwards (ours, or the one another reconcile recorded first) and the written
 * object; undefined when the machine is gone.
 */
export function recordHost(api: Api<Metal3Machine>, m3m: Readonly<Metal3Machine>, host: string): Promise<{ readonly host: string; readonly written?: Metal3Machine } | undefined> {
  return onFreshCopy(api, m3m, 'its host was being recorded', async (current) => {
    const named = current.metadata.annotations?.[HOST_ANNOTATION];
    if (named) return { host: named };
    const written = await api.mergePatch(current.metadata.name ?? '', { metadata: { resourceVersion: current.metadata.resourceVersion, annotations: { [HOST_ANNOTATION]: host } } });
    return { host, written };
  });
}

/** Removes the record if it still names `host`; returns the written object, if anything was written. */
export function forgetHost(api: Api<Metal3Machine>, m3m: Readonly<Metal3Machine>, host: string): Promise<Metal3Machine | undefined> {
  return onFreshCopy(api, m3m, 'its host record was being removed', async (current) => {
    // A deletion that began meanwhile needs the record to find the host it must release.
    if (current.metadata.annotations?.[HOST_ANNOTATION] !== host || current.metadata.deletionTimestamp) return undefined;
    return await api.mergePatch(current.metadata.name ?? '', { metadata: { resourceVersion: current.metadata.resourceVersion, annotations: { [HOST_ANNOTATION]: null } } } as never);
  });
}
