// Reading templates and writing the objects cloned from them, for any kind the generated registry
// knows (CAPI does this with unstructured objects; our typed client needs a descriptor per kind).
import { type Client, isNotFound, type KubeObject, type ObjectReference, type ResourceDescriptor } from '@metal3-ts/generated';
import { TerminalError } from '@metal3-ts/shared/reconcile/reconcile';
import { descriptorForRef, InvalidReferenceError, UnknownKindError } from './contract.ts';
import { cloneFromTemplate, type CloneInput, referenceTo, type TemplateObject } from './machineset-clone.ts';

/** A template reference no retry can make usable (unknown kind, missing apiVersion/kind/name). */
export class BadTemplateReferenceError extends TerminalError {
  override name = 'BadTemplateReferenceError';
}

/** The descriptor of the kind a reference names. @throws BadTemplateReferenceError */
export function descriptorOf(ref: Readonly<Pick<ObjectReference, 'apiVersion' | 'kind'>>): ResourceDescriptor {
  try {
    return descriptorForRef(ref);
  } catch (error) {
    if (error instanceof UnknownKindError || error instanceof InvalidReferenceError) throw new BadTemplateReferenceError(error.message, { cause: error });
    throw error;
  }
}

/** Reads the template a reference names, in `namespace` when the reference has none. */
export function getTemplate(client: Client, ref: Readonly<ObjectReference>, namespace: string): Promise<TemplateObject> {
  return client.api(descriptorOf(ref), ref.namespace || namespace).get(ref.name ?? '') as Promise<TemplateObject>;
}

/** Clones the template named by `input.templateRef` and creates the clone; returns its reference. */
export async function createFromTemplate(client: Client, input: Omit<CloneInput, 'template'>): Promise<ObjectReference> {
  const template = await getTemplate(client, input.templateRef, input.namespace);
  const clone = cloneFromTemplate({ ...input, template });
  const created = await client.api(descriptorOf(clone), input.namespace).create(clone);
  return referenceTo(created);
}

/** Creates an object of a registry-known kind (a KubeadmConfig built by a control plane, say). */
export async function createObject(client: Client, obj: KubeObject): Promise<ObjectReference> {
  const created = await client.api(descriptorOf(obj), obj.metadata.namespace).create(obj);
  return referenceTo(created);
}

/** Deletes what a reference names; gone already is fine. */
export async function deleteReferenced(client: Client, ref: Readonly<ObjectReference>, namespace: string): Promise<void> {
  try {
    await client.api(descriptorOf(ref), ref.namespace || namespace).delete(ref.name ?? '');
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

/** Reads what a reference names; undefined when it does not exist. */
export async function getReferenced(client: Client, ref: Readonly<ObjectReference>, namespace: string): Promise<KubeObject | undefined> {
  try {
    return await client.api(descriptorOf(ref), ref.namespace || namespace).get(ref.name ?? '');
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}
