// Emits the TypeScript declarations of one kind (its interfaces and its List) with
// json-schema-to-typescript, from the schema annotate.ts prepared. Formatting is done here rather than
// by prettier: it is a few lines of brace counting, fast, and immune to formatter version drift.
import { compile } from 'json-schema-to-typescript';
import { annotateRoot, type NameRegistry } from './annotate.ts';
import type { Crd, CrdVersion } from './crd.ts';
import { CodegenError } from './errors.ts';

export interface KindDeclarations {
  readonly kind: string;
  readonly text: string;
  readonly imports: ReadonlySet<string>;
}

export async function emitKind(
  crd: Crd,
  version: CrdVersion,
  names: NameRegistry,
  descriptions: boolean,
): Promise<KindDeclarations> {
  const kind = crd.names.kind;
  const apiVersion = `${crd.group}/${version.name}`;
  const annotated = annotateRoot(version.schema, {
    file: crd.file,
    path: version.schemaPath,
    descriptions,
    names,
    apiVersion,
    kind,
  });
  let raw: string;
  try {
    raw = await compile(annotated.schema, kind, {
      bannerComment: '',
      format: false,
      additionalProperties: false,
      ignoreMinAndMaxItems: true,
      unreachableDefinitions: true,
      declareExternallyReferenced: true,
      enableConstEnums: false,
      strictIndexSignatures: false,
      unknownAny: true,
      $refOptions: { resolve: { external: false, file: false, http: false } },
    });
  } catch (cause) {
    throw new CodegenError(`type emission failed: ${(cause as Error).message}`, crd.file, version.schemaPath);
  }
  const imports = new Set(annotated.imports);
  imports.add('ListMeta');
  const list = [
    `export interface ${crd.names.listKind} {`,
    `apiVersion: ${JSON.stringify(apiVersion)}`,
    `kind: ${JSON.stringify(crd.names.listKind)}`,
    'metadata: ListMeta',
    `items: ${kind}[]`,
    '}',
  ].join('\n');
  return { kind, text: format(`${dropToolComments(raw).trim()}\n${list}`), imports };
}

/** jstt explains hoisted definitions in comments of its own; they are noise in our API docs. */
function dropToolComments(source: string): string {
  return source.replace(/\/\*\*(?:(?!\*\/)[\s\S])*?was referenced by(?:(?!\*\/)[\s\S])*?\*\/\n?/g, '');
}

/** Indents by brace depth, ends members with `;`, and drops the parentheses jstt puts around unions. */
export function format(source: string): string {
  const out: string[] = [];
  let depth = 0;
  let inComment = false;
  for (const rawLine of source.split('\n')) {
    let line = rawLine.trim();
    if (line === '') continue;
    if (line.startsWith('/**')) inComment = true;
    if (inComment) {
      out.push('  '.repeat(depth) + (line.startsWith('*') ? ` ${line}` : line));
      if (line.endsWith('*/')) inComment = false;
      continue;
    }
    if (line.startsWith('}')) depth = Math.max(0, depth - 1);
    const opens = line.endsWith('{');
    if (!opens && depth > 0 && !line.endsWith(';')) line = `${line};`;
    line = line.replace(/: \(([^()]*)\);$/, ': $1;');
    out.push('  '.repeat(depth) + line);
    if (opens) depth++;
    if (depth === 0 && line === '}') out.push('');
  }
  return out.join('\n').trimEnd();
}
