// `npm run images`: one OCI image archive per controller package under controllers/ (discovered, so a
// new controller gets one) in dist/images/<controller>.oci.tar, written by this TS code alone: no
// Docker daemon, no base image to pull, nothing to install (docs/images.md says why). Prints each
// image's compressed and uncompressed size and build time (also written to DIR/images.json).
// Usage: node scripts/images/build.ts [--out DIR] [--allow-dirty] [--only a,b]
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { bundle } from '../bundle.ts';
import { DirtyTreeError, sourceOf } from './git.ts';
import { bundleLayer, runtimeLayer } from './layers.ts';
import { type Layer, layerOf, ociLayout } from './oci.ts';
import { imageConfig, type ImageFacts, imageLabels, imageName, ociArchitecture } from './spec.ts';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Controller packages: directories of controllers/ with a package.json and src/main.ts. */
export function discoverControllers(root: string): string[] {
  const dir = join(root, 'controllers');
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(dir, e.name, 'package.json')) && existsSync(join(dir, e.name, 'src', 'main.ts')))
    .map((e) => e.name)
    .sort();
}

export interface BuiltImage {
  readonly controller: string;
  readonly name: string;
  readonly archive: string;
  readonly manifestDigest: string;
  readonly compressedSize: number;
  readonly uncompressedSize: number;
  readonly buildMs: number;
}

export interface BuildOptions {
  readonly root?: string;
  readonly out?: string;
  readonly allowDirty?: boolean;
  readonly only?: readonly string[];
  /** Progress lines (default: none). */
  readonly log?: (line: string) => void;
}

export async function buildImages(options: BuildOptions = {}): Promise<{ images: BuiltImage[]; runtimeMs: number; libraries: string[] }> {
  const root = options.root ?? repoRoot;
  const out = options.out ?? join(root, 'dist', 'images');
  const log = options.log ?? (() => {});
  const source = sourceOf(root);
  if (source.dirty.length > 0 && !options.allowDirty) throw new DirtyTreeError(source.dirty);
  const revision = source.dirty.length > 0 ? `${source.revision}-dirty` : source.revision;
  const all = discoverControllers(root);
  const unknown = (options.only ?? []).filter((c) => !all.includes(c));
  if (unknown.length > 0) throw new Error(`--only: no controller ${unknown.join(', ')} (found ${all.join(', ')})`);
  const controllers = options.only?.length ? all.filter((c) => options.only!.includes(c)) : all;
  const architecture = ociArchitecture(process.arch);
  mkdirSync(out, { recursive: true });

  let t = performance.now();
  const runtime = runtimeLayer(join(root, 'node_modules', '.bin', 'node'));
  const runtimeLayerDone: Layer = layerOf(runtime.chunks);
  const runtimeMs = performance.now() - t;
  log(
    `runtime layer: node + ${runtime.libraries.length} libraries, ${mb(runtimeLayerDone.gzipped.length)} gzipped, ${
      mb(runtimeLayerDone.uncompressedSize)
    } raw, ${seconds(runtimeMs)}`,
  );

  const images: BuiltImage[] = [];
  for (const controller of controllers) {
    t = performance.now();
    const pkg = JSON.parse(readFileSync(join(root, 'controllers', controller, 'package.json'), 'utf8')) as {
      version: string;
      description?: string;
      license?: string;
    };
    // The package's own `build` output path, so `npm run build -w` and the image hold the same file.
    const bundlePath = join(root, 'controllers', controller, 'dist', `controller-${controller}.mjs`);
    await bundle(join(root, 'controllers', controller, 'src', 'main.ts'), bundlePath, { minify: true });
    const facts: ImageFacts = {
      controller,
      version: pkg.version,
      revision,
      description: pkg.description ?? '',
      license: pkg.license ?? '',
      created: source.created,
    };
    const layers = [runtimeLayerDone, layerOf(bundleLayer(readFileSync(bundlePath)))];
    const name = imageName(controller, pkg.version);
    const layout = ociLayout({
      config: imageConfig(facts, layers.map((l) => l.diffId), architecture),
      layers,
      refName: name,
      annotations: { ...imageLabels(facts), 'org.opencontainers.image.created': source.created },
      architecture,
    });
    const archive = join(out, `${controller}.oci.tar`);
    writeFileSync(archive, Buffer.concat(layout.chunks));
    const image: BuiltImage = {
      controller,
      name,
      archive,
      manifestDigest: layout.manifestDigest,
      compressedSize: layout.compressedSize,
      uncompressedSize: layout.uncompressedSize,
      buildMs: performance.now() - t + runtimeMs,
    };
    images.push(image);
    log(
      `${name}: ${mb(image.compressedSize)} compressed, ${mb(image.uncompressedSize)} uncompressed, built in ${seconds(image.buildMs)} (${
        image.manifestDigest.slice(0, 19)
      }…) → ${archive}`,
    );
  }
  const summary = { images, runtimeMs, libraries: runtime.libraries };
  // For scripts and the image test: what was built, with sizes and times.
  writeFileSync(join(out, 'images.json'), `${JSON.stringify(summary, null, 2)}\n`);
  return summary;
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const usage = 'usage: npm run images -- [--out DIR] [--allow-dirty] [--only cluster,machine]';
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        out: { type: 'string' },
        'allow-dirty': { type: 'boolean', default: false },
        only: { type: 'string' },
        help: { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    console.error(`images: ${error instanceof Error ? error.message : String(error)}\n${usage}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(`${usage}\n(each image's build time includes the shared runtime layer's, which is built once)`);
    process.exit(0);
  }
  try {
    await buildImages({ out: values.out, allowDirty: values['allow-dirty'], only: values.only?.split(',').filter(Boolean), log: (l) => console.log(l) });
  } catch (error) {
    console.error(`images: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(error instanceof DirtyTreeError ? 3 : 1);
  }
}
