// An OCI image layout (image-spec image-layout.md) for one image, packed into one tar archive:
// `oci-layout`, `index.json` naming the image, and content-addressed blobs (gzipped layers, the config,
// the manifest). Pure apart from the CPU it burns: the same layers and config give the same bytes.
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { TarWriter } from './tar.ts';

export const MEDIA = {
  index: 'application/vnd.oci.image.index.v1+json',
  manifest: 'application/vnd.oci.image.manifest.v1+json',
  config: 'application/vnd.oci.image.config.v1+json',
  layer: 'application/vnd.oci.image.layer.v1.tar+gzip',
} as const;

export interface Layer {
  /** sha256 of the gzipped bytes: the blob's name and the manifest's digest. */
  readonly digest: string;
  /** sha256 of the uncompressed tar: the config's diff_id. */
  readonly diffId: string;
  readonly gzipped: Uint8Array;
  readonly uncompressedSize: number;
}

export function sha256(...chunks: readonly Uint8Array[]): string {
  const hash = createHash('sha256');
  for (const c of chunks) hash.update(c);
  return `sha256:${hash.digest('hex')}`;
}

/**
 * A layer from a finished tar's chunks (node's gzip header has no mtime, so this is deterministic).
 * Level 6: on the node binary level 9 saves 0.1 MB of 46 MB and takes three times as long.
 */
export function layerOf(tarChunks: readonly Uint8Array[]): Layer {
  const tar = Buffer.concat(tarChunks);
  const gzipped = gzipSync(tar, { level: 6 });
  return { digest: sha256(gzipped), diffId: sha256(tar), gzipped, uncompressedSize: tar.length };
}

export interface LayoutInput {
  readonly config: object;
  readonly layers: readonly Layer[];
  /** e.g. `metal3-ts/controller-cluster:0.1.0` (index annotation org.opencontainers.image.ref.name). */
  readonly refName: string;
  readonly annotations: Readonly<Record<string, string>>;
  readonly architecture: string;
}

export interface Layout {
  readonly chunks: Uint8Array[];
  readonly manifestDigest: string;
  readonly compressedSize: number;
  readonly uncompressedSize: number;
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8');

export function ociLayout(input: LayoutInput): Layout {
  const config = json(input.config);
  const configDesc = { mediaType: MEDIA.config, digest: sha256(config), size: config.length };
  const manifest = json({
    schemaVersion: 2,
    mediaType: MEDIA.manifest,
    config: configDesc,
    layers: input.layers.map((l) => ({ mediaType: MEDIA.layer, digest: l.digest, size: l.gzipped.length })),
    annotations: input.annotations,
  });
  const manifestDigest = sha256(manifest);
  const index = json({
    schemaVersion: 2,
    mediaType: MEDIA.index,
    manifests: [{
      mediaType: MEDIA.manifest,
      digest: manifestDigest,
      size: manifest.length,
      platform: { architecture: input.architecture, os: 'linux' },
      annotations: { 'org.opencontainers.image.ref.name': input.refName, 'io.containerd.image.name': `docker.io/${input.refName}` },
    }],
  });
  const tar = new TarWriter()
    .add({ type: 'file', path: 'oci-layout', mode: 0o644, data: json({ imageLayoutVersion: '1.0.0' }) })
    .add({ type: 'file', path: 'index.json', mode: 0o644, data: index })
    .add({ type: 'dir', path: 'blobs', mode: 0o755 })
    .add({ type: 'dir', path: 'blobs/sha256', mode: 0o755 });
  const blob = (digest: string, data: Uint8Array) => tar.add({ type: 'file', path: `blobs/sha256/${digest.slice('sha256:'.length)}`, mode: 0o644, data });
  const seen = new Set<string>();
  for (const layer of input.layers) {
    if (seen.has(layer.digest)) continue;
    seen.add(layer.digest);
    blob(layer.digest, layer.gzipped);
  }
  blob(configDesc.digest, config);
  blob(manifestDigest, manifest);
  const compressedSize = input.layers.reduce((n, l) => n + l.gzipped.length, config.length + manifest.length);
  const uncompressedSize = input.layers.reduce((n, l) => n + l.uncompressedSize, 0);
  return { chunks: tar.finish(), manifestDigest, compressedSize, uncompressedSize };
}
