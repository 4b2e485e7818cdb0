// Runs one admission case (crds/src/webhook-cases*.ts) against a real apiserver at a given API version:
// create, or create the old object and replace it with the new one, each in a fresh namespace; the
// outcome is the stored object or the apiserver's error.
import type { AdmissionCase, Json, Resource } from '@metal3-ts/crds/webhook-cases';
import * as assert from 'uvu/assert';
import { ApiError } from '../envtest/errors.ts';
import type { ApiClient, KubeObject } from '../envtest/http.ts';
import { freshNamespace } from '../envtest/suite.ts';

const GROUP = 'infrastructure.cluster.x-k8s.io';

/** Reads `a.b[1].c` from an object. */
export function at(object: unknown, path: string): Json | undefined {
  let value: unknown = object;
  for (const key of path.split(/\.|\[(\d+)\]/).filter(Boolean)) value = (value as Record<string, unknown> | undefined)?.[key];
  return value as Json | undefined;
}

async function admit(client: ApiClient, version: string, c: AdmissionCase): Promise<KubeObject> {
  const ns = await freshNamespace(client, 'crd-admission');
  const path = `/apis/${GROUP}/${version}/namespaces/${ns}/${c.kind.toLowerCase()}s`;
  const inNamespace = (object: Resource): KubeObject => ({
    ...structuredClone(object),
    apiVersion: `${GROUP}/${version}`,
    kind: c.kind,
    metadata: { ...object.metadata, namespace: ns },
  });
  if (!c.old) return client.create(path, inNamespace(c.object));
  const stored = await client.create(path, inNamespace(c.old));
  const next = inNamespace(c.object);
  next.metadata = { ...next.metadata, resourceVersion: stored.metadata?.resourceVersion };
  return client.replace(`${path}/${c.object.metadata.name}`, next);
}

/** Submits the case and asserts its outcome: rejected with every listed text (422), or accepted with its defaults. */
export async function checkAdmission(client: ApiClient, version: string, c: AdmissionCase): Promise<void> {
  let result: KubeObject | ApiError;
  try {
    result = await admit(client, version, c);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    result = error;
  }
  if (c.rejects) {
    assert.ok(result instanceof ApiError, 'expected the request to be rejected');
    assert.is(result.code, 422, result.message);
    for (const text of c.rejects) assert.ok(result.message.includes(text), `"${text}" missing from: ${result.message}`);
    return;
  }
  if (result instanceof ApiError) assert.unreachable(`expected acceptance, got ${result.message}`);
  for (const [path, value] of Object.entries(c.defaults ?? {})) assert.equal(at(result, path), value, `default at ${path}`);
}
