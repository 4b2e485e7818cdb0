// The small part of kustomize that Cluster API's CRD and manager kustomizations use, as pure functions:
// a kustomization's resources, patches (merge patches naming their target by kind and name) and labels
// (`labels[].pairs`, or the older `commonLabels`), and clusterctl's `${VAR:=default}` variables in the
// manager arguments. Reading these files instead of copying their effect by hand keeps the test
// environment installing what each release installs, labels and conversion stanzas included.
import { parse, parseAllDocuments } from 'yaml';
import { EnvtestError } from '../envtest/errors.ts';

export interface Kustomization {
  readonly resources: readonly string[];
  readonly patches: readonly string[];
  readonly labels: Readonly<Record<string, string>>;
  readonly namePrefix: string;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export function parseKustomization(text: string, origin: string): Kustomization {
  const doc: unknown = parse(text);
  if (!isObject(doc)) throw new EnvtestError(`${origin}: not a kustomization`);
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);
  const patches = (Array.isArray(doc['patches']) ? doc['patches'] : []).map((p) => isObject(p) && typeof p['path'] === 'string' ? p['path'] : undefined);
  if (patches.includes(undefined)) throw new EnvtestError(`${origin}: only patches given by path are supported`);
  const labels: Record<string, string> = {};
  for (const entry of Array.isArray(doc['labels']) ? doc['labels'] : []) {
    if (isObject(entry) && isObject(entry['pairs'])) { for (const [k, v] of Object.entries(entry['pairs'])) labels[k] = String(v); }
  }
  if (isObject(doc['commonLabels'])) { for (const [k, v] of Object.entries(doc['commonLabels'])) labels[k] = String(v); }
  return {
    resources: strings(doc['resources']),
    patches: patches as string[],
    labels,
    namePrefix: typeof doc['namePrefix'] === 'string' ? doc['namePrefix'] : '',
  };
}

/** Merge-patch semantics: objects merge key by key, anything else (lists included) is replaced; null deletes. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Json = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

export interface Resource extends Json {
  kind: string;
  metadata: { name: string; labels?: Record<string, string> } & Json;
}

/** Every YAML document of `text` that is a Kubernetes object. */
export function resources(text: string, origin: string): Resource[] {
  return parseAllDocuments(text).flatMap((doc) => {
    if (doc.errors.length > 0) throw new EnvtestError(`${origin}: invalid YAML: ${doc.errors[0]?.message}`);
    const value: unknown = doc.toJS();
    return isObject(value) && typeof value['kind'] === 'string' && isObject(value['metadata']) ? [value as Resource] : [];
  });
}

/**
 * Builds a kustomization: its resources, each patch applied to the resource of the same kind and name
 * (a patch without a target is an error: it would silently do nothing), then the labels on every one.
 */
export function build(k: Kustomization, read: (path: string) => string, origin: string): Resource[] {
  const out = k.resources.flatMap((path) => resources(read(path), `${origin}/${path}`));
  for (const path of k.patches) {
    for (const patch of resources(read(path), `${origin}/${path}`)) {
      const at = out.findIndex((r) => r.kind === patch.kind && r.metadata.name === patch.metadata.name);
      if (at < 0) throw new EnvtestError(`${origin}/${path}: patches ${patch.kind} ${patch.metadata.name}, which the kustomization does not have`);
      out[at] = mergePatch(out[at], patch) as Resource;
    }
  }
  if (Object.keys(k.labels).length === 0) return out;
  return out.map((r) => ({ ...r, metadata: { ...r.metadata, labels: { ...r.metadata.labels, ...k.labels } } }));
}

/**
 * clusterctl's variables: `${NAME:=default}` becomes the default (the released components' values when
 * no one overrides them); a variable without a default is an error naming it.
 */
export function expandDefaults(text: string, origin: string): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::=([^}]*))?\}/g, (_, name: string, fallback: string | undefined) => {
    if (fallback === undefined) throw new EnvtestError(`${origin}: variable ${name} has no default`);
    return fallback;
  });
}
