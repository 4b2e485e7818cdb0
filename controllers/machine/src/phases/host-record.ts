// The host annotation (M-41) as the machine's one record of its host, written before the host is
// claimed and locked on the machine's resourceVersion: of two reconciles of the same machine (two
// replicas), only the first to record may claim, so one machine never holds two hosts. Removing the
// record is locked the same way and only removes the value it was asked to.
import type { Api } from '@metal3-ts/generated';
import type { Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { retryOnConflict } from '@metal3-ts/shared/controller/retry-on-conflict';
import { HOST_ANNOTATION } from '../names.ts';

/**
 * Runs `write` on `m3m`, then on a fresh copy after each conflict (the harness's retryOnConflict and
 * its stop rules); undefined once the machine is gone (at the write or at the re-read).
 */
function onFreshCopy<R>(
  api: Api<Metal3Machine>,
  m3m: Readonly<Metal3Machine>,
  what: string,
  write: (current: Readonly<Metal3Machine>) => Promise<R>,
): Promise<R | undefined> {
  const name = m3m.metadata.name ?? '';
  return retryOnConflict(m3m, write, { what: `Metal3Machine ${m3m.metadata.namespace ?? ''}/${name}: ${what}`, reread: () => api.get(name) });
}

/**
 * Records `host` (`<namespace>/<name>`) unless the machine records another host already. Returns the
 * host recorded afterwards (ours, or the one another reconcile recorded first) and the written
 * object; undefined when the machine is gone.
 */
export function recordHost(
  api: Api<Metal3Machine>,
  m3m: Readonly<Metal3Machine>,
  host: string,
): Promise<{ readonly host: string; readonly written?: Metal3Machine } | undefined> {
  return onFreshCopy(api, m3m, 'recording its host', async (current) => {
    const named = current.metadata.annotations?.[HOST_ANNOTATION];
    if (named) return { host: named };
    const written = await api.mergePatch(current.metadata.name ?? '', {
      metadata: { resourceVersion: current.metadata.resourceVersion, annotations: { [HOST_ANNOTATION]: host } },
    });
    return { host, written };
  });
}

/** Removes the record if it still names `host`; returns the written object, if anything was written. */
export function forgetHost(api: Api<Metal3Machine>, m3m: Readonly<Metal3Machine>, host: string): Promise<Metal3Machine | undefined> {
  return onFreshCopy(api, m3m, 'removing its host record', async (current) => {
    // A deletion that began meanwhile needs the record to find the host it must release.
    if (current.metadata.annotations?.[HOST_ANNOTATION] !== host || current.metadata.deletionTimestamp) return undefined;
    return await api.mergePatch(
      current.metadata.name ?? '',
      { metadata: { resourceVersion: current.metadata.resourceVersion, annotations: { [HOST_ANNOTATION]: null } } } as never,
    );
  });
}
