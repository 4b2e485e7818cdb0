// The registry and descriptors must survive an esbuild bundle with minification: they are keyed by
// group/version/kind strings, never by class or function names.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

// esbuild drives a native binary through node:child_process; the Deno run covers the rest of the suite.
if (!('Deno' in globalThis)) {
  test('a minified esbuild bundle keeps the registry, descriptors, factories and guards working', async () => {
    const { build } = await import('esbuild');
    const entry = new URL('./bundle-entry.ts', import.meta.url).pathname;
    const result = await build({ entryPoints: [entry], bundle: true, minify: true, format: 'esm', platform: 'node', write: false });
    const code = result.outputFiles[0]!.text;
    assert.not.ok(code.includes('Metal3MachineResource'), 'identifiers are minified');
    const dir = mkdtempSync(join(tmpdir(), 'generated-bundle-'));
    try {
      const file = join(dir, 'bundle.mjs');
      writeFileSync(file, code);
      const mod = (await import(pathToFileURL(file).href)) as { check(): string[] };
      assert.equal(mod.check(), ['metal3machines', 'true', 'false', 'Secret']);
      console.log(`    bundle of registry + client: ${(code.length / 1024).toFixed(0)} KiB minified`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test.run();
