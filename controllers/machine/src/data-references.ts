// The Secrets a Metal3Machine's host is provisioned from, as its status keeps them (M-23, M-35,
// M-36): userData, metaData, networkData and the rendered Metal3Data. They are state the phases
// build up during a pass (association resolves the user data, the metadata phase the rest) and read
// back (the host's deployment is written from them), so a phase keeps them here, on the scope's
// findings, and deriveStatus writes them to the status with everything else.
import type { Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';

type MachineStatus = NonNullable<Metal3Machine['status']>;

export const REFERENCE_KEYS = ['userData', 'metaData', 'networkData', 'renderedData'] as const;

/** A missing key is a reference the status should not have (deletion drops them, X-2). */
export type DataReferences = Pick<MachineStatus, (typeof REFERENCE_KEYS)[number]>;

/** The references the object's status holds now (copies). */
export function referencesOf(m3m: Readonly<Metal3Machine>): DataReferences {
  const refs: DataReferences = {};
  for (const key of REFERENCE_KEYS) {
    const value = m3m.status?.[key];
    if (value) refs[key] = { ...value };
  }
  return refs;
}

/** `m3m` with exactly `refs` as its status references (pure: a new object, `m3m` untouched). */
export function withReferences(m3m: Readonly<Metal3Machine>, refs: Readonly<DataReferences>): Metal3Machine {
  const status: MachineStatus = { ...(m3m.status ?? {}) };
  for (const key of REFERENCE_KEYS) {
    const value = refs[key];
    if (value) status[key] = value;
    else delete status[key];
  }
  return { ...m3m, status } as Metal3Machine;
}
