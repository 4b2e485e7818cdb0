// Pausing the host BMO-side while the consumer's cluster is paused (M-14, M-15). We mark our pause
// with the value `metal3.io/capm3`, so a pause a user set (any other value) is never lifted by us.
// Beside our pause we store the host status as an annotation; BMO restores status from it when the
// host object is recreated (clusterctl move), so it stays after the pause is lifted (E-41).
import type { Client } from '@metal3-ts/generated';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { copyHost, type HostWriteOptions, patchHost } from './host-patch.ts';
import { CLUSTER_NAME_LABEL } from '@metal3-ts/shared/meta/cluster-api-names';
import { CAPM3_PAUSE_VALUE, HOST_PAUSED_ANNOTATION, STATUS_ANNOTATION } from './names.ts';
import { isPaused, isPausedByUs } from './states.ts';

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  return sorted;
}

/**
 * The status annotation's value: the host status as compact JSON with object keys sorted and the
 * top-level `hardware` key removed, with `<`, `>`, `&`, U+2028 and U+2029 escaped as Go's
 * encoding/json does: the shape CAPM3 writes, and what BMO parses back.
 */
export function statusAnnotationValue(host: Readonly<BareMetalHost>): string {
  const { hardware: _hardware, ...status } = (host.status ?? {}) as Record<string, unknown>;
  return JSON.stringify(sortKeys(status))
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** The host paused by us with its status saved (M-14); unchanged if anyone paused it already. */
export function pausedHost(host: Readonly<BareMetalHost>): BareMetalHost {
  const next = copyHost(host);
  if (isPaused(host)) return next;
  next.metadata.annotations = {
    ...(next.metadata.annotations ?? {}),
    [HOST_PAUSED_ANNOTATION]: CAPM3_PAUSE_VALUE,
    [STATUS_ANNOTATION]: statusAnnotationValue(host),
  };
  return next;
}

export interface UnpauseOptions {
  /**
   * Only lift the pause of a host labelled with this cluster name (M-15): a host that moved on to
   * another cluster is that cluster's business. Omit to skip the check.
   */
  readonly clusterName?: string;
}

/** The host without our pause (M-15); a user's pause and the status annotation stay. */
export function unpausedHost(host: Readonly<BareMetalHost>, options: UnpauseOptions = {}): BareMetalHost {
  const next = copyHost(host);
  if (!isPausedByUs(host)) return next;
  if (options.clusterName !== undefined && host.metadata.labels?.[CLUSTER_NAME_LABEL] !== options.clusterName) return next;
  delete next.metadata.annotations?.[HOST_PAUSED_ANNOTATION];
  return next;
}

export type PauseOptions = Pick<HostWriteOptions, 'onWrite' | 'fieldManager'>;

export interface PauseResult {
  /** False when the host was already as asked and nothing was sent. */
  readonly changed: boolean;
  readonly host: BareMetalHost;
}

export async function pauseHost(client: Client, host: Readonly<BareMetalHost>, options: PauseOptions = {}): Promise<PauseResult> {
  const written = await patchHost(client, host, pausedHost(host), options);
  return written ? { changed: true, host: written } : { changed: false, host: host as BareMetalHost };
}

export async function unpauseHost(client: Client, host: Readonly<BareMetalHost>, options: UnpauseOptions & PauseOptions = {}): Promise<PauseResult> {
  const written = await patchHost(client, host, unpausedHost(host, options), options);
  return written ? { changed: true, host: written } : { changed: false, host: host as BareMetalHost };
}
