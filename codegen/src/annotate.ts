// Rewrites a CRD schema into the input json-schema-to-typescript needs to emit honest Kubernetes
// types: every object node gets a stable path-derived `title` (its interface name), and the nodes
// jstt would get wrong get an explicit `tsType`: ObjectMeta, int-or-string, typeless
// preserve-unknown-fields (JsonValue, not an object), maps (Record), nullable, and well-known shapes.
import type { JSONSchema4, JSONSchema4Type } from 'json-schema';
import { CodegenError } from './errors.ts';
import { pathJoin, type Schema } from './schema.ts';
import { sharedShape } from './shapes.ts';

/** Names already taken in one output module, so that two paths never yield the same interface name. */
export class NameRegistry {
  readonly #taken = new Set<string>();

  claim(wanted: string): string {
    let name = wanted;
    for (let n = 2; this.#taken.has(name); n++) name = `${wanted}${n}`;
    this.#taken.add(name);
    return name;
  }
}

export interface AnnotateOptions {
  readonly file: string;
  readonly path: string;
  /** Keep `description` as JSDoc (our own CRDs); upstream prose is never emitted. */
  readonly descriptions: boolean;
  readonly names: NameRegistry;
  /** apiVersion and kind literals of the root object. */
  readonly apiVersion: string;
  readonly kind: string;
}

export interface Annotated {
  readonly schema: JSONSchema4;
  /** Shared runtime/meta.ts types the emitted code refers to. */
  readonly imports: ReadonlySet<string>;
}

/** Upper camel case of a property name: `matchExpressions` → `MatchExpressions`, `ipv4-dhcp` → `Ipv4Dhcp`. */
export function pascal(name: string): string {
  const out = name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
  return /^[0-9]/.test(out) ? `_${out}` : out;
}

export function annotateRoot(root: Schema, options: AnnotateOptions): Annotated {
  const imports = new Set<string>();
  const definitions: Record<string, JSONSchema4> = {};

  const docs = (node: Schema): string | undefined => {
    const lines: string[] = [];
    if (options.descriptions && typeof node.description === 'string') lines.push(node.description.trim());
    if (node.default !== undefined) lines.push(`@default ${JSON.stringify(node.default)}`);
    return lines.length > 0 ? lines.join('\n\n') : undefined;
  };

  const withDocs = (out: JSONSchema4, node: Schema): JSONSchema4 => {
    const description = docs(node);
    if (description !== undefined) out.description = description;
    return out;
  };

  const useShared = (name: string): string => {
    imports.add(name);
    return name;
  };

  /** The TypeScript type of a map value or array item when it has no interface of its own. */
  const convert = (node: Schema, name: string, path: string): JSONSchema4 => {
    const out = convertInner(node, name, path);
    if (node.nullable === true) return withDocs({ anyOf: [stripDocs(out), { type: 'null' }] }, node);
    return out;
  };

  const convertInner = (node: Schema, name: string, path: string): JSONSchema4 => {
    if (node['x-kubernetes-int-or-string'] === true) return withDocs({ tsType: useShared('IntOrString') }, node);
    if (node['x-kubernetes-preserve-unknown-fields'] === true && !node.properties) {
      const tsType = node.type === 'object' ? useShared('JsonObject') : node.type === undefined ? useShared('JsonValue') : undefined;
      if (tsType) return withDocs({ tsType }, node);
    }
    switch (node.type) {
      case 'string':
      case 'boolean':
        return withDocs(node.enum ? { type: node.type, enum: node.enum as JSONSchema4Type[] } : { type: node.type }, node);
      case 'integer':
      case 'number':
        return withDocs(node.enum ? { type: 'number', enum: node.enum as JSONSchema4Type[] } : { type: 'number' }, node);
      case 'array':
        return withDocs({ type: 'array', items: convert(node.items ?? {}, name, `${path}.items`) }, node);
      case 'object':
        return withDocs(convertObject(node, name, path), node);
      case undefined:
        if (node.anyOf || node.oneOf || node.allOf) return withDocs({ tsType: useShared('JsonValue') }, node);
        throw new CodegenError('non-structural schema: node has no type', options.file, path);
      default:
        throw new CodegenError(`unknown type ${JSON.stringify(node.type)}`, options.file, path);
    }
  };

  const convertObject = (node: Schema, name: string, path: string): JSONSchema4 => {
    const shared = sharedShape(node);
    if (shared) return { tsType: useShared(shared) };
    if (node.properties) {
      const properties: Record<string, JSONSchema4> = {};
      const title = options.names.claim(name);
      for (const [prop, child] of Object.entries(node.properties)) {
        properties[prop] = convert(child, name + pascal(prop), pathJoin(`${path}.properties`, prop));
      }
      const out: JSONSchema4 = { title, type: 'object', properties, additionalProperties: false };
      if (node.required && node.required.length > 0) out.required = [...node.required];
      if (node['x-kubernetes-preserve-unknown-fields'] === true) out.additionalProperties = { tsType: useShared('JsonValue') };
      return out;
    }
    const values = node.additionalProperties;
    if (typeof values === 'object') {
      const valueSchema = convert(values, `${name}Value`, `${path}.additionalProperties`);
      if (valueSchema.title) {
        definitions[valueSchema.title] = valueSchema;
        return { tsType: `Record<string, ${valueSchema.title}>` };
      }
      return { tsType: `Record<string, ${inlineType(valueSchema)}>` };
    }
    if (values === true || node['x-kubernetes-embedded-resource'] === true) return { tsType: useShared('JsonObject') };
    // A structural object with no properties and no additionalProperties is pruned to {} by the apiserver.
    return { tsType: 'Record<string, never>' };
  };

  /** A small type expression for map values that are not objects of their own. */
  const inlineType = (schema: JSONSchema4): string => {
    if (schema.tsType) return schema.tsType;
    if (schema.anyOf) return schema.anyOf.map((s) => inlineType(s)).join(' | ');
    if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
    switch (schema.type) {
      case 'array': {
        const item = inlineType(schema.items as JSONSchema4);
        return /^[\w.<>, ]+$/.test(item) && !item.includes(' ') ? `${item}[]` : `Array<${item}>`;
      }
      case 'null':
        return 'null';
      case 'string':
      case 'number':
      case 'boolean':
        return schema.type;
      default:
        throw new CodegenError('map value type not expressible inline', options.file, options.path);
    }
  };

  if (root.type !== 'object' || !root.properties) {
    throw new CodegenError('root schema must be an object with properties', options.file, options.path);
  }
  const rootOut = convertObject(root, options.kind, options.path);
  const props = rootOut.properties ?? {};
  props['apiVersion'] = { tsType: JSON.stringify(options.apiVersion) };
  props['kind'] = { tsType: JSON.stringify(options.kind) };
  props['metadata'] = { tsType: useShared('ObjectMeta') };
  rootOut.properties = props;
  rootOut.required = [...new Set(['apiVersion', 'kind', 'metadata', ...(Array.isArray(rootOut.required) ? rootOut.required : [])])];
  if (options.descriptions && typeof root.description === 'string') rootOut.description = root.description.trim();
  if (Object.keys(definitions).length > 0) rootOut.definitions = definitions;
  return { schema: rootOut, imports };
}

function stripDocs(schema: JSONSchema4): JSONSchema4 {
  const { description: _drop, ...rest } = schema;
  return rest;
}
