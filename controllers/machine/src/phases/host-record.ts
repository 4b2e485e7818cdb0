// The host annotation (M-41) as the machine's one record of its host, written before the host is
// claimed and locked on the machine's resourceVersion: of two reconciles of the same machine (two
// replicas), only the first to record may claim, so one machine never holds two hosts. Removing the
// record is locked the same way and only removes the value it was asked to.
import { isConflict, isNotFound, type Api } from '@metal3-ts/generated';
import type { Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { HOST_ANNOTATION } from '../names.ts';

const ATTEMPTS = 5;

/**
 * Records `host` (`<namespace>/<name>`) unless the machine records another host already. Returns the
 * host recorded afterwards (ours, or the one another reconcile recorded first) and the written
 * object; undefined when the machine is gone.
 */
export async function recordHost(api: Api<Metal3Machine>, m3m: Readonly<Metal3Machine>, host: string): Promise<{ readonly host: string; readonly written?: Metal3Machine } | undefined> {
  const name = m3m.metadata.name ?? '';
  let current: Readonly<Metal3Machine> = m3m;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const named = current.metadata.annotations?.[HOST_ANNOTATION];
    if (named) return { host: named };
    try {
      const written = await api.mergePatch(name, { metadata: { resourceVersion: current.metadata.resourceVersion, annotations: { [HOST_ANNOTATION]: host } } });
      return { host, written };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      if (!isConflict(error)) throw error;
    }
    current = await api.get(name);
  }
  throw new Error(`Metal3Machine ${m3m.metadata.namespace ?? ''}/${name} kept changing while its host was being recorded`);
}

/** Removes the record if it still names `host`; returns the written object, if anything was written. */
export async function forgetHost(api: Api<Metal3Machine>, m3m: Readonly<Metal3Machine>, host: string): Promise<Metal3Machine | undefined> {
  const name = m3m.metadata.name ?? '';
  let current: Readonly<Metal3Machine> = m3m;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    // A deletion that began meanwhile needs the record to find the host it must release.
    if (current.metadata.annotations?.[HOST_ANNOTATION] !== host || current.metadata.deletionTimestamp) return undefined;
    try {
      return await api.mergePatch(name, { metadata: { resourceVersion: current.metadata.resourceVersion, annotations: { [HOST_ANNOTATION]: null } } } as never);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      if (!isConflict(error)) throw error;
    }
    current = await api.get(name);
  }
  throw new Error(`Metal3Machine ${m3m.metadata.namespace ?? ''}/${name} kept changing while its host record was being removed`);
}
