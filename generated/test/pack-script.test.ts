// The staging rules of scripts/pack-generated.ts on small fixtures: what counts as leaving the package,
// and what the published manifest keeps of the workspace one.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { foreignImports, publishManifest } from '../../scripts/pack-generated.ts';

test('foreignImports: own .js files and node: built-ins pass; packages, .ts paths, missing files and type references are named', () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'pack-script-')));
  try {
    mkdirSync(join(dir, 'runtime'));
    writeFileSync(join(dir, 'runtime', 'meta.js'), 'export {};\n');
    writeFileSync(join(dir, 'index.js'), "import * as http from 'node:http';\nexport * from './runtime/meta.js';\nconst m = await import('./runtime/meta.js');\n");
    writeFileSync(join(dir, 'index.d.ts'), "/// <reference types=\"node\" />\nexport * from './runtime/meta.ts';\nimport type { KubeConfig } from '@kubernetes/client-node';\n");
    writeFileSync(join(dir, 'bad.js'), "import '@metal3-ts/shared';\nexport * from './gone.js';\nexport * from '../outside.js';\n");
    assert.equal(foreignImports(dir).sort(), [
      'bad.js: ../outside.js',
      'bad.js: ./gone.js',
      'bad.js: @metal3-ts/shared',
      'index.d.ts: ./runtime/meta.ts',
      'index.d.ts: /// <reference types="node" />',
      'index.d.ts: @kubernetes/client-node',
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('publishManifest: JavaScript exports, pins and identity kept; scripts and devDependencies dropped; no dependencies', () => {
  const workspace = {
    name: '@metal3-ts/generated', version: '0.1.0', type: 'module', license: 'Apache-2.0',
    exports: { '.': './src/index.ts' }, scripts: { build: 'x' }, devDependencies: { esbuild: '1' },
    'metal3-ts': { upstream: { generatedFrom: { 'cluster-api': 'v1.10.10' } } },
  };
  const m = publishManifest(workspace);
  assert.equal(m['exports'], {
    '.': { types: './index.d.ts', default: './index.js' },
    './package.json': './package.json',
    './*': { types: './*.d.ts', default: './*.js' },
  });
  assert.equal(m['metal3-ts'], workspace['metal3-ts']);
  for (const gone of ['scripts', 'devDependencies', 'dependencies']) assert.not.ok(gone in m, gone);
  assert.equal(m['peerDependenciesMeta'], { '@types/node': { optional: true } });
});

test.run();
