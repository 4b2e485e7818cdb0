// The host annotation (M-41) as the machine's one record of its host, written before the host is
// claimed and locked on the machine's resourceVersion: of two reconciles of the same machine (two
// replicas), only the first to record may claim, so one machine never holds two hosts. Removing the
// record is locked the same way and only removes the value it was asked to.
//
// The record also carries our finalizer (M-18) when the machine has none yet: issue 20 merged what
// were two writes (finalizer, then record). Safe because the one write is locked on the machine's
// resourceVersion: the finalizer list it replaces whole is the server's list at that version, so no
// other writer's finalizer is lost; and the claim only comes after this write succeeded, so a host
// never names a machine that can vanish without our deletion flow. A crash before the write leaves
// neither (nothing is claimed yet); after it, both. A machine that is being deleted records nothing.
import type { Api } from '@metal3-ts/generated';
import type { Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { retryOnConflict } from '@metal3-ts/shared/controller/retry-on-conflict';
import { hasFinalizer } from '@metal3-ts/shared/meta/finalizers';
import { HOST_ANNOTATION, METAL3_MACHINE_FINALIZER } from '../names.ts';

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
 * Records `host` (`<namespace>/<name>`), with our finalizer if it is missing, unless the machine
 * records another host already. Returns the host recorded afterwards (ours, or the one another
 * reconcile recorded first) and the written object; undefined when the machine is gone or being
 * deleted (a deletion claims nothing).
 */
export function recordHost(
  api: Api<Metal3Machine>,
  m3m: Readonly<Metal3Machine>,
  host: string,
): Promise<{ readonly host: string; readonly written?: Metal3Machine } | undefined> {
  return onFreshCopy(api, m3m, 'recording its host', async (current) => {
    const named = current.metadata.annotations?.[HOST_ANNOTATION];
    if (named) return { host: named };
    if (current.metadata.deletionTimestamp) return undefined;
    const finalizers = hasFinalizer(current, METAL3_MACHINE_FINALIZER)
      ? {}
      : { finalizers: [...(current.metadata.finalizers ?? []), METAL3_MACHINE_FINALIZER] };
    const written = await api.mergePatch(current.metadata.name ?? '', {
      metadata: { resourceVersion: current.metadata.resourceVersion, ...finalizers, annotations: { [HOST_ANNOTATION]: host } },
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
