// Issue 15, point 1 shown: every controller image, built by `npm run images` from a clean checkout of
// HEAD, is unpacked from its OCI archive alone and run as a kubelet would run it (pod.ts: its numeric
// user, read-only root, the ServiceAccount volume from the TokenRequest API, KUBERNETES_SERVICE_*),
// against the real test apiserver under exactly the RBAC of config/controllers/<c>/: it becomes ready,
// takes its Lease, reconciles a sample object and exits 0 on SIGTERM. A rule taken out of the applied
// ClusterRole shows as a named Forbidden; a dirty tree is refused by name.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Transport } from '@metal3-ts/generated';
import { LeaseResource } from '@metal3-ts/generated/coordination.k8s.io/v1';
import { freshNamespace, withSharedEnv } from '@metal3-ts/test/envtest/suite';
import { eventually, httpGet, repoRoot } from '@metal3-ts/test/harness/controller-process';
import { type BuiltImage, discoverControllers } from '../../../../scripts/images/build.ts';
import { ENTRYPOINT, envNameAndValue, IMAGE_ENV, IMAGE_USER } from '../../../../scripts/images/spec.ts';
import { type OpenedImage, openImageArchive, unpackRootfs } from '../../../../scripts/images/unpack.ts';
import { cleanCheckout, runImageBuild } from './checkout.ts';
import { applyAll, controllerInstall, hostNetworkArgs, leaseName, type Rule } from './install.ts';
import { webhookImageRun } from './webhook-image.ts';
import { ImagePod, sandboxUnavailable } from './pod.ts';
import { SAMPLES } from './samples.ts';

const test = suite('controller images: built from a clean checkout, run as a kubelet would (issue 15)');
const env = withSharedEnv(test);
const unavailable = sandboxUnavailable();
/** controllers/conversion is a webhook the apiserver calls, not a controller: no Lease, no RBAC, no sample (its own test below). */
const WEBHOOK = 'conversion';
const images = discoverControllers(repoRoot);
const controllers = images.filter((c) => c !== WEBHOOK);
const BUDGET_BYTES = 60e6;

let work: string;
let checkout: string;
let built: Map<string, BuiltImage>;
let admin: Client;
const pods: ImagePod[] = [];
const figures: string[] = [];

test.before(async () => {
  work = mkdtempSync(join(tmpdir(), 'metal3-ts-images-'));
  checkout = await cleanCheckout(repoRoot, join(work, 'checkout'));
  const result = await runImageBuild(checkout, ['--out', join(work, 'images')]);
  assert.is(result.code, 0, `npm run images in a clean checkout:\n${result.stdout}${result.stderr}`);
  const summary = JSON.parse(readFileSync(join(work, 'images', 'images.json'), 'utf8')) as { images: BuiltImage[] };
  built = new Map(summary.images.map((i) => [i.controller, i]));
  admin = new Client(Transport.fromConnection(env().admin));
});

test.after(() => {
  for (const p of pods) p.kill('SIGKILL');
  admin?.transport.close();
  if (figures.length > 0) console.log(`images:\n${figures.map((f) => `  ${f}`).join('\n')}`);
  if (work) rmSync(work, { recursive: true, force: true });
});

test('npm run images refuses a dirty tree and names the dirty files (exit 3); nothing is built', async () => {
  const stray = join(checkout, 'controllers', controllers[0]!, 'src', 'stray.ts');
  writeFileSync(stray, 'export {};\n');
  try {
    const out = join(work, 'dirty-images');
    const result = await runImageBuild(checkout, ['--out', out]);
    assert.is(result.code, 3, `exit code (stderr: ${result.stderr})`);
    assert.match(result.stderr, 'refusing to build images from a dirty tree');
    assert.match(result.stderr, `controllers/${controllers[0]}/src/stray.ts`);
    assert.match(result.stderr, '--allow-dirty');
    assert.not.ok(existsSync(out), 'no image written');
  } finally {
    rmSync(stray);
  }
});

/** The image's root filesystem from its archive alone; checks what an image may hold and claims. */
function unpacked(controller: string): { image: OpenedImage; rootfs: string; info: BuiltImage } {
  const info = built.get(controller);
  if (!info) throw new Error(`npm run images built no image for controller ${controller}`);
  const image = openImageArchive(info.archive);
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'controllers', controller, 'package.json'), 'utf8')) as { version: string };
  const head = readFileSync(join(checkout, '.git', 'HEAD'), 'utf8').trim();
  assert.is(image.refName, `metal3-ts/controller-${controller}:${pkg.version}`);
  assert.is(image.config.config.User, IMAGE_USER);
  assert.equal(image.config.config.Entrypoint, ENTRYPOINT);
  const labels = image.config.config.Labels ?? {};
  assert.is(labels['org.opencontainers.image.version'], pkg.version);
  assert.is(labels['org.opencontainers.image.revision'], head, 'built from the clean checkout: the revision has no -dirty');
  assert.ok(labels['org.opencontainers.image.source'], 'source label');
  assert.ok(info.compressedSize <= BUDGET_BYTES, `${controller}: ${info.compressedSize} bytes compressed, budget ${BUDGET_BYTES}`);
  const rootfs = join(work, 'rootfs', controller);
  unpackRootfs(image, rootfs);
  for (const absent of ['bin/sh', 'usr/bin/sh', 'bin/bash', 'usr/bin/npm', 'nodejs/bin/npm', 'tmp']) {
    assert.not.ok(existsSync(join(rootfs, absent)), `${controller}: no /${absent} in the image`);
  }
  return { image, rootfs, info };
}

interface Started {
  readonly pod: ImagePod;
  readonly probes: string;
  readonly ns: string;
  readonly args: readonly string[];
}

/** Applies the controller's install objects in a fresh namespace and starts its image there. */
async function startPod(controller: string, image: OpenedImage, rootfs: string, options: { dropRule?: (rules: Rule[]) => Rule[] } = {}): Promise<Started> {
  const ns = await freshNamespace(env().admin.client, `img-${controller}`);
  // The all-in-one process is installed by its own variant, config/all-in-one (one Deployment for the five).
  const install = controllerInstall(
    controller === 'all-in-one' ? join(repoRoot, 'config', 'all-in-one') : join(repoRoot, 'config', 'controllers', controller),
    ns,
  );
  assert.ok(
    install.image.endsWith(image.refName ?? '-'),
    `config/controllers/${controller}: the Deployment names image ${install.image}, the build made ${image.refName}`,
  );
  if (options.dropRule) install.clusterRole.rules = options.dropRule(install.clusterRole.rules);
  await applyAll(env().admin.client, install.objects);
  const token = await env().serviceAccountToken(ns, install.serviceAccount.metadata.name);
  const args = hostNetworkArgs(install.args);
  const pod = new ImagePod({
    rootfs,
    config: image.config,
    args,
    serviceAccount: { token, caPem: env().admin.caPem, namespace: ns },
    apiserver: env().admin.server,
    workDir: mkdtempSync(join(work, `pod-${controller}-`)),
  });
  pods.push(pod);
  return { pod, probes: await pod.address('readyz'), ns, args };
}

test('the sandbox is what a kubelet gives the container: user 65532 without extra groups, EROFS on the root, the ServiceAccount volume read-only, only the image Env and KUBERNETES_SERVICE_*', async () => {
  const controller = controllers[0]!;
  const { image, rootfs } = unpacked(controller);
  if (unavailable) {
    console.log(`sandbox check: not run (${unavailable})`);
    return;
  }
  // The image's own node, asked about its surroundings instead of running the controller.
  const probe = `const fs = require('node:fs');
const tryWrite = (p) => { try { fs.writeFileSync(p, 'x'); return 'written'; } catch (e) { return e.code; } };
console.error(JSON.stringify({ level: 'info', msg: 'sandbox', uid: process.getuid(), gid: process.getgid(), groups: process.getgroups(),
  root: tryWrite('/x'), volume: tryWrite('/var/run/secrets/kubernetes.io/serviceaccount/x'), env: Object.keys(process.env).sort(),
  namespace: fs.readFileSync('/var/run/secrets/kubernetes.io/serviceaccount/namespace', 'utf8'), pid: process.pid }));`;
  const config = { ...image.config, config: { ...image.config.config, Entrypoint: [ENTRYPOINT[0]!, '-e', probe] } };
  const pod = new ImagePod({
    rootfs,
    config,
    args: [],
    serviceAccount: { token: 'not-a-token', caPem: env().admin.caPem, namespace: 'sandbox-check' },
    apiserver: env().admin.server,
    workDir: mkdtempSync(join(work, 'pod-sandbox-')),
  });
  pods.push(pod);
  const exit = await pod.exited;
  assert.is(exit.code, 0, `probe exit (log:\n${pod.tail()})`);
  const seen = pod.lines.find((l) => l.msg === 'sandbox');
  assert.ok(seen, `the probe reported (log:\n${pod.tail()})`);
  assert.equal([seen['uid'], seen['gid'], seen['groups']], [65532, 65532, [65532]]);
  assert.is(seen['root'], 'EROFS');
  assert.is(seen['volume'], 'EROFS');
  const imageEnvNames = IMAGE_ENV.map((e) => envNameAndValue(e)[0]);
  assert.equal(seen['env'], ['KUBERNETES_SERVICE_HOST', 'KUBERNETES_SERVICE_PORT', ...imageEnvNames].sort());
  assert.is(seen['namespace'], 'sandbox-check');
  assert.is(seen['pid'], 1, 'PID 1 of its own PID namespace');
});

for (const controller of controllers) {
  test(`image of controller ${controller}: from its OCI archive alone, as user 65532 on a read-only root with a TokenRequest ServiceAccount volume and config/'s RBAC: ready, takes its Lease, reconciles a sample, exits 0 on SIGTERM`, async () => {
    const { image, rootfs, info } = unpacked(controller);
    if (unavailable) {
      console.log(`image ${controller}: archive checked; not run (${unavailable})`);
      return;
    }
    const sample = SAMPLES[controller];
    if (!sample) throw new Error(`no sample reconcile for controller ${controller}: add one to test/e2e/src/images/samples.ts`);
    const { pod, probes, ns, args } = await startPod(controller, image, rootfs);
    await eventually(`${controller}: /readyz 200`, async () => ((await httpGet(probes, '/readyz')).status === 200 ? true : undefined), 30_000);
    const readyMs = performance.now() - pod.startedMs;
    const lease = await eventually(
      `${controller}: Lease held`,
      async () => (await admin.api(LeaseResource, ns).get(leaseName(args))).spec?.holderIdentity || undefined,
      30_000,
    );
    assert.ok(lease);
    const seen = await sample(admin, ns);
    assert.ok(pod.lines.some((l) => l.msg === 'starting manager'), `the manager started (log tail:\n${pod.tail()})`);
    pod.kill('SIGTERM');
    const exit = await pod.exited;
    assert.is(exit.code, 0, `${controller}: exit code after SIGTERM (log tail:\n${pod.tail()})`);
    assert.not.ok(
      pod.lines.some((l) => l.level === 'error' || l.level === 'raw'),
      `${controller}: nothing logged at error level or unstructured (log tail:\n${pod.tail()})`,
    );
    figures.push(
      `${info.name}: ${(info.compressedSize / 1e6).toFixed(1)} MB compressed, ${(info.uncompressedSize / 1e6).toFixed(1)} MB uncompressed, built in ${
        (info.buildMs / 1000).toFixed(1)
      } s, /readyz 200 ${(readyMs / 1000).toFixed(2)} s after spawn; ${seen}`,
    );
  });
}

test(`image of the conversion webhook: from its OCI archive alone, as user 65532 on a read-only root with no ServiceAccount token, the certificate Secret mounted as config/webhook mounts it: ready, converts a review over TLS, exits 0 on SIGTERM`, async () => {
  if (!images.includes(WEBHOOK)) throw new Error(`no controllers/${WEBHOOK} package: the conversion webhook has no image`);
  const { image, rootfs, info } = unpacked(WEBHOOK);
  if (unavailable) {
    console.log(`image ${WEBHOOK}: archive checked; not run (${unavailable})`);
    return;
  }
  const seen = await webhookImageRun({ image, rootfs, workDir: mkdtempSync(join(work, 'pod-conversion-')), apiserver: env().admin.server, pods });
  figures.push(`${info.name}: ${(info.compressedSize / 1e6).toFixed(1)} MB compressed, ${(info.uncompressedSize / 1e6).toFixed(1)} MB uncompressed; ${seen}`);
});

test('a rule taken out of the applied ClusterRole: the image is not ready, /readyz and its error log name the Forbidden resource', async () => {
  const controller = controllers.includes('cluster') ? 'cluster' : controllers[0]!;
  const { image, rootfs } = unpacked(controller);
  if (unavailable) {
    console.log(`RBAC check of ${controller}: not run (${unavailable})`);
    return;
  }
  let removed = '';
  const { pod, probes } = await startPod(controller, image, rootfs, {
    dropRule: (rules) => {
      const at = rules.findIndex((r) => r.verbs.includes('watch'));
      removed = rules[at]?.resources?.[0] ?? '';
      return rules.filter((_, i) => i !== at);
    },
  });
  assert.ok(removed, 'a list/watch rule was removed');
  const body = await eventually(`${controller}: /readyz names the refused ${removed}`, async () => {
    const r = await httpGet(probes, '/readyz');
    return r.status !== 200 && r.body.includes(removed) && r.body.includes('Forbidden') ? r.body : undefined;
  }, 30_000);
  assert.match(body, '403');
  const logged = pod.lines.find((l) => l.level === 'error' && JSON.stringify(l).includes(removed) && /403|Forbidden|forbidden/.test(JSON.stringify(l)));
  assert.ok(logged, `an error log line names ${removed} and the refusal (log tail:\n${pod.tail()})`);
  pod.kill('SIGTERM');
  const exit = await pod.exited;
  assert.is(exit.code, 0, `exit code after SIGTERM (log tail:\n${pod.tail()})`);
});

test.run();
