// The package third parties install (issue 15 point 4): the packed tarball, installed offline into a
// scratch project outside the workspace (so no workspace link can resolve it), type-checks with
// module/moduleResolution node16 and bundler, refuses a wrong field, and runs under Node 24, under
// Deno 2 and as an esbuild bundle, each creating a Metal3Machine through the typed client against a
// local HTTP endpoint (so node:http really works in each runtime). Everything lives in one temp dir,
// removed at the end; the workspace is only read.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { pack, stage } from '../../scripts/pack-generated.ts';

const repo = resolve(fileURLToPath(import.meta.url), '../../..');
const bin = (name: string) => join(repo, 'node_modules', '.bin', name);

// What a user writes: the root entry and a group/version module, a typed object, a wrong field.
const program = `import process from 'node:process';
import { Client, Transport, registry } from '@metal3-ts/generated';
import { Metal3MachineResource, isMetal3Machine, newMetal3Machine, type Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';

const machine: Metal3Machine = newMetal3Machine({
  metadata: { name: 'm-0', namespace: 'metal3' },
  spec: { image: { url: 'http://images/node.qcow2', checksum: 'http://images/node.qcow2.sha256sum', format: 'qcow2' } },
});
// @ts-expect-error a Metal3Machine spec has no field imageURL
newMetal3Machine({ metadata: { name: 'm-1' }, spec: { imageURL: 'http://images/node.qcow2' } });

const client = new Client(Transport.fromConnection({ server: process.env['APISERVER']! }));
const created = await client.api(Metal3MachineResource, 'metal3').create(machine);
client.transport.close();
console.log(JSON.stringify([registry.forObject(created)?.plural, isMetal3Machine(created), created.metadata.uid, created.spec?.image?.format]));
`;
const expected = JSON.stringify(['metal3machines', true, 'uid-1', 'qcow2']);

const tsconfig = (resolution: 'node16' | 'bundler') => ({
  compilerOptions: {
    target: 'ES2022', module: resolution === 'node16' ? 'node16' : 'esnext', moduleResolution: resolution,
    strict: true, noEmit: true, allowImportingTsExtensions: true, lib: ['ES2022'], types: ['node'],
    // node16 also checks every declaration file (ours must be error-free and resolve only its own
    // modules); bundler runs as most projects do, and costs less on a loaded CI machine.
    skipLibCheck: resolution === 'bundler',
  },
  files: ['main.ts'],
});

interface Ran { code: number | null; out: string }

/** Runs a command without blocking the loop (the test's HTTP endpoint must answer meanwhile). */
function run(command: string, args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<Ran> {
  // Without npm's own variables from the npm run that started this test, as in a user's shell.
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('npm_')));
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd, env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b));
    child.stderr.on('data', (b: Buffer) => (out += b));
    child.on('error', fail);
    child.on('close', (code) => done({ code, out }));
  });
}

async function ok(what: string, command: string, args: readonly string[], cwd: string, env?: Record<string, string>): Promise<string> {
  const started = performance.now();
  const result = await run(command, args, cwd, env);
  assert.is(result.code, 0, `${what} failed:\n${result.out}`);
  console.log(`    ${what}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return result.out;
}

/** A stand-in apiserver that answers a create with the object plus a uid. */
function endpoint(): Promise<Server> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (b: Buffer) => (body += b));
    req.on('end', () => {
      const obj = JSON.parse(body || '{}') as { metadata?: object };
      res.writeHead(req.method === 'POST' ? 201 : 405, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...obj, metadata: { ...obj.metadata, uid: 'uid-1', resourceVersion: '1' } }));
    });
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done(server)));
}

// Spawns npm, tsc, deno and esbuild; one run under Node covers it (test:deno runs the unit tests).
if (!('Deno' in globalThis)) {
  test('packed @metal3-ts/generated installs outside the workspace; tsc node16 and bundler, Node 24, Deno 2 and esbuild all use it', async () => {
    const tmp = realpathSync(mkdtempSync(join(tmpdir(), 'metal3-ts-package-')));
    const server = await endpoint();
    try {
      assert.not.ok(tmp.startsWith(`${repo}/`), 'the scratch project lies outside the workspace');
      const env = { APISERVER: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };

      const started = performance.now();
      const tarball = pack(stage(join(tmp, 'staged')), tmp);
      console.log(`    build + pack: ${((performance.now() - started) / 1000).toFixed(1)} s, ${(readFileSync(tarball).length / 1024).toFixed(0)} KiB`);
      const listing = await ok('tar', 'tar', ['tzf', tarball], tmp);
      const files = listing.trim().split('\n').map((f) => f.replace(/^package\//, ''));
      assert.equal(files.filter((f) => !/^(package\.json|README\.md|.+\.js|.+\.d\.ts)$/.test(f)), [], 'only JavaScript, declarations, manifest, README');
      assert.ok(files.includes('infrastructure.cluster.x-k8s.io/v1beta1.d.ts'));

      const app = join(tmp, 'app');
      mkdirSync(app);
      writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }));
      writeFileSync(join(app, 'main.ts'), program);
      for (const r of ['node16', 'bundler'] as const) writeFileSync(join(app, `tsconfig.${r}.json`), JSON.stringify(tsconfig(r)));
      await ok('npm install --offline', 'npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball], app);
      // The transport's declarations name node:http(s) types: a user type-checking them has @types/node
      // (the package's optional peer) in node_modules, as tsc and Deno's checker both look for it there.
      for (const dep of ['@types/node', 'undici-types']) cpSync(join(repo, 'node_modules', dep), join(app, 'node_modules', dep), { recursive: true });
      const installed = JSON.parse(readFileSync(join(app, 'node_modules/@metal3-ts/generated/package.json'), 'utf8')) as Record<string, unknown>;
      assert.not.ok('dependencies' in installed, 'no runtime dependency');
      assert.equal(installed['metal3-ts'], JSON.parse(readFileSync(join(repo, 'generated/package.json'), 'utf8'))['metal3-ts'], 'upstream pins travel with the package');

      const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
      for (const r of ['node16', 'bundler']) await ok(`tsc moduleResolution ${r}`, process.execPath, [tsc, '-p', `tsconfig.${r}.json`], app);
      // Without the directive the same program must fail, naming the field: the refusal is real.
      writeFileSync(join(app, 'main.ts'), program.replace(/^\/\/ @ts-expect-error.*\n/m, ''));
      const refused = await run(process.execPath, [tsc, '-p', 'tsconfig.bundler.json'], app);
      assert.is(refused.code, 2, refused.out);
      assert.match(refused.out, /main\.ts\(\d+,\d+\): error TS2353: .*'imageURL'/);
      writeFileSync(join(app, 'main.ts'), program);

      assert.is((await ok('node main.ts', process.execPath, ['main.ts'], app, env)).trim(), expected);
      const deno = { ...env, DENO_NO_UPDATE_CHECK: '1' };
      await ok('deno check', bin('deno'), ['check', '--quiet', 'main.ts'], app, deno);
      assert.is((await ok('deno run', bin('deno'), ['run', '--quiet', '--allow-env', '--allow-net=127.0.0.1', 'main.ts'], app, deno)).trim(), expected);

      const { build } = await import('esbuild');
      const bundle = join(tmp, 'bundle.mjs');
      const result = await build({ entryPoints: [join(app, 'main.ts')], bundle: true, platform: 'node', format: 'esm', outfile: bundle, metafile: true, logLevel: 'silent' });
      const inputs = Object.keys(result.metafile.inputs);
      assert.ok(inputs.some((i) => i.includes('node_modules/@metal3-ts/generated/index.js')), inputs.join('\n'));
      assert.is((await ok('node bundle.mjs', process.execPath, [bundle], tmp, env)).trim(), expected);
    } finally {
      server.close();
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  test('jsr.json: deno publish --dry-run accepts the TypeScript source for JSR (explicit public types, every export present, only src and README)', async () => {
    const here = join(repo, 'generated');
    const out = await ok('deno publish --dry-run', bin('deno'), ['publish', '--dry-run', '--allow-dirty', '--config', 'jsr.json'], here, { NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' });
    assert.match(out, 'Success Dry run complete');
    const published = [...out.matchAll(/file:\/\/\S+?\/generated\/(\S+)/g)].map((m) => m[1]!);
    assert.ok(published.includes('src/infrastructure.cluster.x-k8s.io/v1beta1.ts'), out);
    assert.equal(published.filter((f) => !/^(src\/.+\.ts|README\.md|jsr\.json)$/.test(f) || f.endsWith('.test.ts')), []);
  });
}

test.run();
