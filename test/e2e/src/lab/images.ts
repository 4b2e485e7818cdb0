// `npm start -- --images`: the lab's controllers from their OCI images instead of their bundles, run the
// way the image test runs them (../images/pod.ts: read-only root, numeric user, a TokenRequest
// ServiceAccount volume, the RBAC of config/controllers/<c>/) and supervised like the bundles. The
// images are built from the working tree (`--allow-dirty`: the lab is for trying changes) into the
// lab's directory and unpacked from their archives.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestEnv } from '@metal3-ts/test/envtest/env';
import { repoRoot } from '@metal3-ts/test/harness/controller-process';
import type { BuiltImage } from '../../../../scripts/images/build.ts';
import { type OpenedImage, openImageArchive, unpackRootfs } from '../../../../scripts/images/unpack.ts';
import { runImageBuild } from '../images/checkout.ts';
import { applyAll, controllerInstall, hostNetworkArgs } from '../images/install.ts';
import { ImagePod, sandboxUnavailable } from '../images/pod.ts';
import { LAB_POLICY, type RestartPolicy } from './backoff.ts';
import type { ControllerName } from './controllers.ts';
import { SupervisedController } from './supervisor.ts';

/** A kubelet refreshes projected tokens; the lab asks for one that outlives a session instead. */
const TOKEN_SECONDS = 24 * 3600;

export interface LabImages {
  readonly images: ReadonlyMap<string, { readonly image: OpenedImage; readonly rootfs: string }>;
}

/** Builds every controller image into `dir/images` and unpacks each; refuses where the sandbox cannot run. */
export async function prepareImages(dir: string, log: (message: string) => void): Promise<LabImages> {
  const unavailable = sandboxUnavailable();
  if (unavailable) throw new Error(`--images: ${unavailable}`);
  const out = join(dir, 'images');
  const started = performance.now();
  const result = await runImageBuild(repoRoot, ['--out', out, '--allow-dirty']);
  if (result.code !== 0) throw new Error(`--images: npm run images failed (exit ${result.code}):\n${result.stderr}`);
  const summary = JSON.parse(readFileSync(join(out, 'images.json'), 'utf8')) as { images: BuiltImage[] };
  const images = new Map<string, { image: OpenedImage; rootfs: string }>();
  for (const built of summary.images) {
    const image = openImageArchive(built.archive);
    const rootfs = join(dir, 'rootfs', built.controller);
    unpackRootfs(image, rootfs);
    images.set(built.controller, { image, rootfs });
  }
  log(`${images.size} images built and unpacked in ${((performance.now() - started) / 1000).toFixed(1)} s (${[...images.keys()].join(', ')})`);
  return { images };
}

export interface ImageControllerOptions {
  readonly dir: string;
  readonly namespace: string;
  readonly extraArgs?: readonly string[];
  readonly restartPolicy?: RestartPolicy;
  readonly log?: (message: string) => void;
}

/** Starts controller `name` from its image under config/'s ServiceAccount and RBAC; waits for /readyz. */
export async function startImageController(
  env: TestEnv,
  name: ControllerName,
  images: LabImages,
  options: ImageControllerOptions,
): Promise<SupervisedController> {
  const found = images.images.get(name);
  if (!found) throw new Error(`--images: no image was built for controller ${name}`);
  const install = controllerInstall(join(repoRoot, 'config', 'controllers', name), options.namespace);
  await applyAll(env.admin.client, install.objects);
  const token = await env.serviceAccountToken(options.namespace, install.serviceAccount.metadata.name, TOKEN_SECONDS);
  const args = [...hostNetworkArgs(install.args), ...(options.extraArgs ?? [])];
  const workDir = join(options.dir, 'pods', name);
  mkdirSync(workDir, { recursive: true });
  const spawn = () =>
    new ImagePod({
      rootfs: found.rootfs,
      config: found.image.config,
      args,
      serviceAccount: { token, caPem: env.admin.caPem, namespace: options.namespace },
      apiserver: env.admin.server,
      workDir,
    });
  const supervised = new SupervisedController(name, 'node', spawn, options.restartPolicy ?? LAB_POLICY, options.log ?? (() => {}));
  try {
    await supervised.process.address('readyz');
  } catch (error) {
    await supervised.stop();
    throw error;
  }
  return supervised;
}
