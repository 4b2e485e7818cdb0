// What the storage-migration test reads besides the API: the bytes etcd holds for an object (through
// etcd's JSON gateway on the test environment's plain-HTTP client URL), and an object as its writer
// wrote it, without what the apiserver sets on every write.
import { Buffer } from 'node:buffer';
import { canonical, type Json } from '@metal3-ts/controller-conversion/convert/json';
import type { KubeObject } from '@metal3-ts/test/envtest/http';

const GROUP = 'infrastructure.cluster.x-k8s.io';

/** The apiVersion an object of ours is encoded at in etcd (the apiserver's `/registry` prefix). */
export async function etcdApiVersion(etcdUrl: string, plural: string, namespace: string, name: string): Promise<string> {
  const key = Buffer.from(`/registry/${GROUP}/${plural}/${namespace}/${name}`).toString('base64');
  const response = await fetch(`${etcdUrl}/v3/kv/range`, { method: 'POST', body: JSON.stringify({ key }) });
  if (!response.ok) throw new Error(`etcd range ${plural}/${namespace}/${name}: HTTP ${response.status} ${await response.text()}`);
  const body = await response.json() as { kvs?: { value?: string }[] };
  const value = body.kvs?.[0]?.value;
  if (value === undefined) throw new Error(`etcd holds no ${plural}/${namespace}/${name}`);
  return (JSON.parse(Buffer.from(value, 'base64').toString('utf8')) as { apiVersion?: string }).apiVersion ?? '(none)';
}

/** Metadata the apiserver sets or bumps on a write, which a rewrite may change. */
const SERVER_SET = ['resourceVersion', 'managedFields', 'generation', 'creationTimestamp', 'uid'];

/** `object` as canonical JSON, without the metadata the apiserver sets. */
export function canonicalWritten(object: KubeObject): string {
  const metadata = { ...(object.metadata as Record<string, unknown>) };
  for (const key of SERVER_SET) delete metadata[key];
  return canonical({ ...object, metadata } as unknown as Json);
}
