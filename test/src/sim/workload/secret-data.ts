// Reading a data Secret the way baremetal-operator does: the first of the given keys that is set.
// For user data BMO looks at `userData` and then `value` (the key Cluster API bootstrap Secrets use).
import { Buffer } from 'node:buffer';
import type { Secret } from '@metal3-ts/generated/core/v1';

export function secretText(secret: Readonly<Secret> | undefined, keys: readonly string[]): string | undefined {
  if (!secret) return undefined;
  for (const key of keys) {
    const encoded = secret.data?.[key];
    if (encoded !== undefined) return Buffer.from(encoded, 'base64').toString('utf8');
    const plain = secret.stringData?.[key];
    if (plain !== undefined) return plain;
  }
  return undefined;
}
