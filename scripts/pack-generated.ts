// Builds @metal3-ts/generated as the package third parties install: tsc's JavaScript and .d.ts, a
// publish manifest and the README, staged in one directory that holds nothing else of the monorepo,
// and with --pack DIR packed by npm into DIR. The staging exists because the workspace manifest must
// export the TypeScript source (the other packages run it directly) while an installed package must
// export JavaScript (Node does not strip types under node_modules), and npm, unlike pnpm and yarn,
// ignores publishConfig.exports. The staged output is checked to import only its own files and
// node: built-ins, so "no dependency" is enforced at build time, not just promised.
//
//   node scripts/pack-generated.ts [--out DIR] [--pack DIR]   (default --out generated/dist/package)
//   node scripts/pack-generated.ts --refuse                     the workspace package's prepack guard
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import process from 'node:process';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'generated');

/** The manifest of the installable package: the workspace one with JavaScript exports and no scripts. */
export function publishManifest(workspace: Record<string, unknown>): Record<string, unknown> {
  const keep = ['name', 'version', 'description', 'license', 'type', 'sideEffects', 'metal3-ts'];
  const picked = Object.fromEntries(keep.filter((k) => k in workspace).map((k) => [k, workspace[k]]));
  return {
    ...picked,
    exports: {
      '.': { types: './index.d.ts', default: './index.js' },
      './package.json': './package.json',
      './*': { types: './*.d.ts', default: './*.js' },
    },
    engines: { node: '>=20' },
    // Types only: the transport's declarations name node:http(s) types. Never a runtime dependency.
    peerDependencies: { '@types/node': '>=20' },
    peerDependenciesMeta: { '@types/node': { optional: true } },
  };
}

/** Import specifiers of the built files that leave the package: anything but node: built-ins and own files. */
export function foreignImports(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const entry of readdirSync(d)) {
      const path = join(d, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(d\.ts|js)$/.test(entry)) check(path);
    }
  };
  const check = (file: string): void => {
    const text = readFileSync(file, 'utf8');
    const where = relative(dir, file);
    for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"]([^'"]+)['"]/g)) {
      const spec = m[1]!;
      if (spec.startsWith('node:')) continue;
      const target = resolve(dirname(file), spec);
      const own = spec.startsWith('.') && spec.endsWith('.js') && target.startsWith(dir) && existsSync(target);
      if (!own) out.push(`${where}: ${spec}`);
    }
    for (const m of text.matchAll(/^\/\/\/\s*<reference\s[^>]*>/gm)) out.push(`${where}: ${m[0]}`);
  };
  walk(dir);
  return out;
}

/**
 * tsc rewrites `./x.ts` to `./x.js` in JavaScript (rewriteRelativeImportExtensions) but keeps `.ts` in
 * declarations, which resolve only beside sources; the package ships `x.js` + `x.d.ts`, so point at `.js`.
 */
function rewriteDeclarationImports(dir: string): void {
  for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (!entry.endsWith('.d.ts')) continue;
    const file = join(dir, entry);
    const text = readFileSync(file, 'utf8');
    const fixed = text.replace(/((?:\bfrom\s*|\bimport\s*\(\s*)['"]\.{1,2}\/[^'"]+)\.ts(['"])/g, '$1.js$2');
    if (fixed !== text) writeFileSync(file, fixed);
  }
}

function run(command: string, args: readonly string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status ?? result.signal}):\n${result.stdout}${result.stderr}`);
  return result.stdout;
}

/** Builds and stages the package into `out`; returns the staged directory. */
export function stage(out: string): string {
  rmSync(out, { recursive: true, force: true });
  run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json', '--outDir', out], source);
  rewriteDeclarationImports(out);
  const workspace = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(out, 'package.json'), `${JSON.stringify(publishManifest(workspace), null, 2)}\n`);
  copyFileSync(join(source, 'README.md'), join(out, 'README.md'));
  const foreign = foreignImports(out);
  if (foreign.length > 0) throw new Error(`the built package imports outside itself:\n  ${foreign.join('\n  ')}`);
  return out;
}

/** `npm pack` of a staged directory into `destination`; returns the tarball's path. */
export function pack(staged: string, destination: string): string {
  const [info] = JSON.parse(run('npm', ['pack', staged, '--pack-destination', destination, '--json', '--silent'], destination)) as [{ filename: string }];
  return join(destination, info.filename);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const value = (flag: string): string | undefined => {
    const at = args.indexOf(flag);
    return at >= 0 ? args[at + 1] : undefined;
  };
  if (args.includes('--refuse')) {
    console.error(
      '@metal3-ts/generated: this workspace package exports TypeScript source; pack the built one with `npm run tarball -w @metal3-ts/generated` (generated/dist/package).',
    );
    process.exit(1);
  }
  try {
    const staged = stage(resolve(value('--out') ?? join(source, 'dist', 'package')));
    console.error(`pack-generated: staged ${relative(process.cwd(), staged) || '.'}`);
    const destination = value('--pack');
    if (destination) console.log(pack(staged, resolve(destination)));
  } catch (error) {
    console.error(`pack-generated: ${(error as Error).message}`);
    process.exit(1);
  }
}
