// Files (`contentFrom`) and user passwords (`passwdFrom`) may come from Secrets in the config's
// namespace. CABPK reads them before rendering and fails the render when one is missing; so does the
// simulator, leaving the renderers pure.
import type { KubeadmConfigSpec } from '@metal3-ts/generated/bootstrap.cluster.x-k8s.io/v1beta1';

/** A referenced Secret or key does not exist (yet). */
export class MissingSecretError extends Error {
  override name = 'MissingSecretError';
}

/** Reads one key of one Secret in the config's namespace; undefined when the Secret or key is missing. */
export type SecretKeyReader = (name: string, key: string) => Promise<string | undefined>;

async function read(reader: SecretKeyReader, what: string, ref: { name: string; key: string }): Promise<string> {
  const value = await reader(ref.name, ref.key);
  if (value === undefined) throw new MissingSecretError(`${what}: key "${ref.key}" of Secret ${ref.name} not found`);
  return value;
}

/** A copy of `spec` with every secret reference replaced by the value it points at. */
export async function resolveSecretReferences(spec: Readonly<KubeadmConfigSpec>, reader: SecretKeyReader): Promise<KubeadmConfigSpec> {
  const resolved = structuredClone(spec) as KubeadmConfigSpec;
  for (const file of resolved.files ?? []) {
    if (file.content !== undefined || !file.contentFrom) continue;
    file.content = await read(reader, `file ${file.path}`, file.contentFrom.secret);
    delete file.contentFrom;
  }
  for (const user of resolved.users ?? []) {
    if (user.passwd !== undefined || !user.passwdFrom) continue;
    user.passwd = await read(reader, `user ${user.name}`, user.passwdFrom.secret);
    delete user.passwdFrom;
  }
  return resolved;
}

/** UTF-8 text of a base64 Secret value (Secrets carry `data` base64-encoded). */
export function decodeSecretValue(base64: string): string {
  return new TextDecoder().decode(Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)));
}
