// Bundles a controller entry point into one ESM file that starts under both `node` (24) and
// `deno run -A`: every dependency inlined, Node builtins left as `node:` imports (Deno provides them).
// Usage: node scripts/bundle.ts <entry.ts> <out.mjs> [--minify] [--sourcemap]
import { build, type BuildOptions, type Plugin } from 'esbuild';
import { statSync } from 'node:fs';
import process from 'node:process';
import { pathToFileURL } from 'node:url';

export interface BundleOptions {
  readonly minify?: boolean;
  readonly sourcemap?: boolean;
}

export interface BundleResult {
  readonly outfile: string;
  readonly bytes: number;
}

/**
 * Node builtins reached through the banner's require() rather than as ES module imports. Node's ES
 * module wrapper of a builtin reads every export, which runs the lazy ones: `node:http`'s WebSocket,
 * MessageEvent and CloseEvent load undici (and http2, perf_hooks, worker_threads with it), about 8 MB
 * of RSS in a process that never uses them (issue 20). require() leaves lazy exports lazy.
 */
export const builtinsThroughRequire: Plugin = {
  name: 'builtins-through-require',
  setup(b) {
    const namespace = 'builtin-through-require';
    b.onResolve({ filter: /^node:/ }, (args) => (args.namespace === namespace ? { path: args.path, external: true } : { path: args.path, namespace }));
    b.onLoad({ filter: /.*/, namespace }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path)});`, loader: 'js' }));
  },
};

export function esbuildOptions(entry: string, outfile: string, options: BundleOptions = {}): BuildOptions {
  return {
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    // platform 'node' keeps builtins external; CommonJS code inside the bundle still calls
    // require() for them, which an ES module lacks: give it one (Deno supports node:module too).
    banner: { js: "import { createRequire as __metal3CreateRequire } from 'node:module';\nconst require = __metal3CreateRequire(import.meta.url);" },
    minify: options.minify ?? false,
    // Keep class and function names: logs and error names read them.
    keepNames: true,
    sourcemap: options.sourcemap ? 'linked' : false,
    legalComments: 'none',
    logLevel: 'warning',
    plugins: [builtinsThroughRequire],
  };
}

export async function bundle(entry: string, outfile: string, options: BundleOptions = {}): Promise<BundleResult> {
  await build(esbuildOptions(entry, outfile, options));
  return { outfile, bytes: statSync(outfile).size };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const positional = args.filter((a) => !a.startsWith('--'));
  const [entry, outfile] = positional;
  if (!entry || !outfile || positional.length !== 2) {
    process.stderr.write('usage: bundle.ts <entry.ts> <out.mjs> [--minify] [--sourcemap]\n');
    process.exit(2);
  }
  const result = await bundle(entry, outfile, { minify: args.includes('--minify'), sourcemap: args.includes('--sourcemap') });
  process.stdout.write(`${result.outfile}: ${(result.bytes / 1024).toFixed(0)} KiB\n`);
}
