// Reading the example cluster (or any manifests directory) and creating its objects: every YAML
// document with an apiVersion and kind the typed API knows, in file order, in the lab's namespace
// unless the document names one. Unknown kinds are an error naming the file and the document, so a
// typo never silently drops an object.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { type Client, type KubeObject, registry } from '@metal3-ts/generated';
import { convertObject } from '@metal3-ts/controller-conversion/convert/index';

export interface Manifest {
  readonly source: string;
  readonly object: KubeObject;
}

/** The YAML files of `path` (a file, or a directory read in name order). */
function yamlFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => join(path, f));
}

export class ManifestError extends Error {
  override name = 'ManifestError';
}

/** Parses every document of every file; throws ManifestError naming the file for bad YAML or a missing kind. */
export function readManifests(path: string): Manifest[] {
  const manifests: Manifest[] = [];
  for (const file of yamlFiles(path)) {
    parseAllDocuments(readFileSync(file, 'utf8')).forEach((doc, index) => {
      const source = `${file} (document ${index + 1})`;
      if (doc.errors.length > 0) throw new ManifestError(`${source}: ${doc.errors[0]?.message ?? 'invalid YAML'}`);
      let object: KubeObject | null;
      try {
        object = doc.toJS() as KubeObject | null;
      } catch (error) {
        throw new ManifestError(`${source}: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (object === null) return;
      if (!object.apiVersion || !object.kind || !object.metadata?.name) throw new ManifestError(`${source}: apiVersion, kind and metadata.name are required`);
      manifests.push({ source, object });
    });
  }
  return manifests;
}

function descriptorOf(manifest: Manifest) {
  const { apiVersion, kind } = manifest.object;
  const slash = apiVersion.indexOf('/');
  const [group, version] = slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
  const descriptor = registry.get(group, version, kind);
  if (!descriptor) throw new ManifestError(`${manifest.source}: unknown kind ${kind} in ${apiVersion}`);
  return descriptor;
}

/** Creates every object (an object that exists already is left as it is). */
export async function applyManifests(client: Client, namespace: string, manifests: readonly Manifest[]): Promise<void> {
  for (const manifest of manifests) {
    const descriptor = descriptorOf(manifest);
    const ns = descriptor.namespaced ? (manifest.object.metadata.namespace ?? namespace) : undefined;
    try {
      await client.api(descriptor, ns).create({ ...manifest.object, metadata: { ...manifest.object.metadata, ...(ns ? { namespace: ns } : {}) } });
    } catch (error) {
      if ((error as { code?: number }).code !== 409) throw new ManifestError(`${manifest.source}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/** Deletes every object (one already gone is skipped); returns how many are still present (being deleted). */
export async function deleteManifests(client: Client, namespace: string, manifests: readonly Manifest[]): Promise<number> {
  let present = 0;
  for (const manifest of manifests) {
    const descriptor = descriptorOf(manifest);
    const api = client.api(descriptor, descriptor.namespaced ? (manifest.object.metadata.namespace ?? namespace) : undefined);
    try {
      await api.delete(manifest.object.metadata.name ?? '');
      present++;
    } catch (error) {
      if ((error as { code?: number }).code !== 404) throw new ManifestError(`${manifest.source}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return present;
}

const METAL3_GROUP = 'infrastructure.cluster.x-k8s.io';

/** The versions our CRDs serve, either of which a manifest may be written at. */
export const METAL3_VERSIONS = ['v1beta1', 'v1beta2'] as const;
export type Metal3Version = typeof METAL3_VERSIONS[number];

/** `value` as a Metal3Version, undefined when it names none (for flags and environment variables). */
export const metal3VersionOf = (value: string): Metal3Version | undefined => METAL3_VERSIONS.find((v) => v === value);

/** The manifests with every Metal3 object at `version` (undefined: as written), converted by the webhook's rules. */
export function metal3At(manifests: readonly Manifest[], version: Metal3Version | undefined): Manifest[] {
  if (!version) return [...manifests];
  return manifests.map((m) => m.object.apiVersion.startsWith(`${METAL3_GROUP}/`) ? { ...m, object: convertObject(m.object, `${METAL3_GROUP}/${version}`) } : m);
}
