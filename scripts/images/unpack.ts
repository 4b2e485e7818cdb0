// Reading an image back the way a container runtime does: from the OCI archive alone (index.json →
// manifest → config and layers, every blob's digest checked), applying the layers in order onto an
// empty directory (a `.wh.` whiteout deletes what an earlier layer put there). Nothing is taken from
// the build's inputs, so what the image test runs is what a registry would serve.
import { chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize, posix } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { MEDIA, sha256 } from './oci.ts';
import { readTar, TarError } from './tar.ts';

export interface ImageConfig {
  readonly architecture: string;
  readonly os: string;
  readonly created?: string;
  readonly config: {
    readonly User?: string;
    readonly Entrypoint?: readonly string[];
    readonly Cmd?: readonly string[];
    readonly Env?: readonly string[];
    readonly WorkingDir?: string;
    readonly Labels?: Readonly<Record<string, string>>;
  };
  readonly rootfs: { readonly type: string; readonly diff_ids: readonly string[] };
}

export interface OpenedImage {
  readonly refName: string | undefined;
  readonly manifestDigest: string;
  readonly config: ImageConfig;
  /** Uncompressed layer tars, bottom first; each checked against the config's diff_ids. */
  readonly layers: readonly Uint8Array[];
}

export function openImageArchive(path: string): OpenedImage {
  const files = new Map(readTar(readFileSync(path)).flatMap((e) => (e.type === 'file' ? [[e.path, e.data] as const] : [])));
  const blob = (digest: string): Uint8Array => {
    const data = files.get(`blobs/sha256/${digest.replace(/^sha256:/, '')}`);
    if (!data) throw new TarError(`${path}: blob ${digest} missing`);
    if (sha256(data) !== digest) throw new TarError(`${path}: blob ${digest} does not match its digest`);
    return data;
  };
  const text = (data: Uint8Array | undefined, what: string) => {
    if (!data) throw new TarError(`${path}: no ${what}`);
    return JSON.parse(Buffer.from(data).toString('utf8'));
  };
  const index = text(files.get('index.json'), 'index.json') as { manifests: { mediaType: string; digest: string; annotations?: Record<string, string> }[] };
  const entry = index.manifests.find((m) => m.mediaType === MEDIA.manifest);
  if (!entry) throw new TarError(`${path}: index.json names no image manifest`);
  const manifest = text(blob(entry.digest), 'manifest') as { config: { digest: string }; layers: { mediaType: string; digest: string }[] };
  const config = text(blob(manifest.config.digest), 'config') as ImageConfig;
  const layers = manifest.layers.map((l, i) => {
    const data = l.mediaType.endsWith('+gzip') ? gunzipSync(blob(l.digest)) : blob(l.digest);
    if (sha256(data) !== config.rootfs.diff_ids[i]) throw new TarError(`${path}: layer ${i} does not match diff_id ${config.rootfs.diff_ids[i]}`);
    return data;
  });
  return { refName: entry.annotations?.['org.opencontainers.image.ref.name'], manifestDigest: entry.digest, config, layers };
}

/** Applies the image's layers, in order, onto `dir` (created). */
export function unpackRootfs(image: OpenedImage, dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (const layer of image.layers) {
    for (const entry of readTar(layer)) {
      const rel = normalize(entry.path).replace(/^\/+/, '');
      if (rel.startsWith('..')) throw new TarError(`layer entry escapes the root: ${entry.path}`);
      const target = join(dir, rel);
      const base = posix.basename(rel);
      if (base.startsWith('.wh.')) {
        rmSync(join(dirname(target), base.slice('.wh.'.length)), { recursive: true, force: true });
        continue;
      }
      if (entry.type === 'dir') {
        mkdirSync(target, { recursive: true });
        chmodSync(target, entry.mode);
        continue;
      }
      mkdirSync(dirname(target), { recursive: true });
      rmSync(target, { force: true });
      if (entry.type === 'symlink') symlinkSync(entry.target, target);
      else writeFileSync(target, entry.data, { mode: entry.mode });
    }
  }
}
