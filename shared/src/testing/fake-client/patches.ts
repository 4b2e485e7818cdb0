// The two patch formats the controllers send, applied the way the apiserver applies them to the
// JSON of the stored object: RFC 7386 merge patch (null deletes, arrays replaced whole) and RFC 6902
// JSON Patch, including the apiserver's quirk that a `test` of `null` matches a missing member (the
// finalizer guards rely on it). A patch that cannot be applied throws PatchFailure; the fake answers
// it with 422, as the apiserver does. Pure functions over plain JSON values; inputs are not modified.
import type { JsonPatchOperation } from '@metal3-ts/generated';

type Json = unknown;
type JsonObject = Record<string, Json>;

export class PatchFailure extends Error {
  override name = 'PatchFailure';
}

const isObject = (v: Json): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Deep equality of JSON values (member order ignored). */
export function jsonEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  }
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => k in b && jsonEqual(a[k], b[k]));
}

/** RFC 7386: members of `patch` replace those of `target`; null removes; non-objects replace whole. */
export function applyMergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return structuredClone(patch);
  const out: JsonObject = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = applyMergePatch(out[key], value);
  }
  return out;
}

/** `/a/b~1c` → ['a', 'b/c']; '' is the whole document. */
function tokens(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new PatchFailure(`invalid JSON pointer "${pointer}"`);
  return pointer.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function arrayIndex(token: string, length: number, appending: boolean): number {
  if (appending && token === '-') return length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new PatchFailure(`invalid array index "${token}"`);
  const index = Number(token);
  if (index > (appending ? length : length - 1)) throw new PatchFailure(`array index ${index} out of bounds`);
  return index;
}

/** The container holding the pointer's last token, and that token. */
function parentOf(doc: Json, pointer: string): { parent: Json; last: string } {
  const path = tokens(pointer);
  const last = path.pop();
  if (last === undefined) throw new PatchFailure('the whole document cannot be the target');
  let node = doc;
  for (const token of path) {
    if (Array.isArray(node)) node = node[arrayIndex(token, node.length, false)];
    else if (isObject(node) && token in node) node = node[token];
    else throw new PatchFailure(`missing path "${pointer}"`);
  }
  if (!Array.isArray(node) && !isObject(node)) throw new PatchFailure(`missing path "${pointer}"`);
  return { parent: node, last };
}

function read(doc: Json, pointer: string): { found: boolean; value?: Json } {
  let node = doc;
  for (const token of tokens(pointer)) {
    if (Array.isArray(node) && /^(0|[1-9][0-9]*)$/.test(token) && Number(token) < node.length) node = node[Number(token)];
    else if (isObject(node) && token in node) node = node[token];
    else return { found: false };
  }
  return { found: true, value: node };
}

function add(doc: Json, pointer: string, value: Json): void {
  const { parent, last } = parentOf(doc, pointer);
  if (Array.isArray(parent)) parent.splice(arrayIndex(last, parent.length, true), 0, structuredClone(value));
  else (parent as JsonObject)[last] = structuredClone(value);
}

function remove(doc: Json, pointer: string): Json {
  const { parent, last } = parentOf(doc, pointer);
  if (Array.isArray(parent)) return parent.splice(arrayIndex(last, parent.length, false), 1)[0];
  const obj = parent as JsonObject;
  if (!(last in obj)) throw new PatchFailure(`cannot remove missing path "${pointer}"`);
  const old = obj[last];
  delete obj[last];
  return old;
}

/** RFC 6902, all or nothing: the result, or a PatchFailure naming the operation that failed. */
export function applyJsonPatch(doc: Json, operations: readonly JsonPatchOperation[]): Json {
  if (!Array.isArray(operations)) throw new PatchFailure('a JSON Patch is an array of operations');
  const out = structuredClone(doc);
  for (const op of operations) {
    switch (op.op) {
      case 'add':
        add(out, op.path, op.value);
        break;
      case 'remove':
        remove(out, op.path);
        break;
      case 'replace':
        remove(out, op.path);
        add(out, op.path, op.value);
        break;
      case 'move':
        add(out, op.path, remove(out, op.from));
        break;
      case 'copy': {
        const source = read(out, op.from);
        if (!source.found) throw new PatchFailure(`copy from missing path "${op.from}"`);
        add(out, op.path, source.value);
        break;
      }
      case 'test': {
        const current = read(out, op.path);
        const matches = current.found ? jsonEqual(current.value, op.value) : op.value === null;
        if (!matches) throw new PatchFailure(`testing value ${op.path} failed`);
        break;
      }
      default:
        throw new PatchFailure(`unknown JSON Patch operation "${(op as { op: string }).op}"`);
    }
  }
  return out;
}
