// What every metal3-ts controller image is, stated once: the numeric user, the entrypoint, the paths
// of the runtime and the bundle, the environment and the org.opencontainers.image.* labels. The TS
// builder (build.ts) and the Containerfile a user builds with Docker or Podman must agree on these;
// containerfile.test.ts checks that they do.

/** distroless' "nonroot": a numeric user, so a kubelet's runAsNonRoot check passes without /etc/passwd. */
export const IMAGE_USER = '65532:65532';
export const NODE_PATH = '/nodejs/bin/node';
export const BUNDLE_PATH = '/app/controller.mjs';
/**
 * V8 flags of every controller. A young generation capped at 2 MiB per semi-space: uncapped, V8 grows
 * it to 64 MiB under a machine burst and keeps it while idle (the all-in-one process with 100 ready
 * machines held 172 MiB without the cap, 135 MiB with it, and was ready sooner with less CPU). V8's
 * optimize-for-size mode, which favours a small heap over speed where V8 offers the choice: 100 ready
 * machines 121 → 96 MiB with no CPU cost measured; 1 000 after their burst 204 → 113 MiB. And no
 * optimising compilers (`--no-opt --no-maglev`; the interpreter and the baseline compiler stay): their
 * code, the binary pages it touches and their compile zones cost every process 8–15 MiB after a
 * 1 000-machine burst and 2–3 MiB idle, and the conversion webhook 26 MiB after 1 000 reviews, for 6 %
 * more CPU in that burst (21 % in a run sharing the machine with tests) and a sixth more time per
 * conversion, when the apiserver spends five times our CPU (docs/benchmarks.md, issue 20). Not
 * `--lite-mode`: no JIT at all, hence no WebAssembly, which `fetch` needs; a Deployment's `command`
 * can still choose it.
 */
export const NODE_FLAGS: readonly string[] = ['--max-semi-space-size=2', '--optimize-for-size', '--no-opt', '--no-maglev'];
export const ENTRYPOINT: readonly string[] = [NODE_PATH, ...NODE_FLAGS, BUNDLE_PATH];
/**
 * Nothing the controller reads: no npm, no shell, so no PATH lookups happen. glibc's malloc gets fixed
 * thresholds: by default it raises them after freeing a large block (a list response's buffer), so
 * later blocks up to that size come from the heap and what a burst freed is never given back. Fixed
 * at 128 KiB, large blocks are mapped and unmapped: the all-in-one process held 234 MiB instead of
 * 266 after a 1 000-machine burst (docs/benchmarks.md, issue 20). Other C libraries ignore it.
 */
export const IMAGE_ENV: readonly string[] = [
  'NODE_ENV=production',
  'GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072:glibc.malloc.trim_threshold=131072',
];
/** An IMAGE_ENV entry split at its first `=`: its name and its value. */
export function envNameAndValue(entry: string): [string, string] {
  const at = entry.indexOf('=');
  return [entry.slice(0, at), entry.slice(at + 1)];
}

/** `NAME=value` entries (the images' own by default) as a process environment. */
export function imageEnvironment(entries: readonly string[] = IMAGE_ENV): Record<string, string> {
  return Object.fromEntries(entries.map(envNameAndValue));
}
export const WORKING_DIR = '/app';
export const IMAGE_SOURCE = 'https://github.com/metal3-ts/metal3-ts';

export const LABEL_KEYS = [
  'org.opencontainers.image.source',
  'org.opencontainers.image.version',
  'org.opencontainers.image.revision',
  'org.opencontainers.image.title',
  'org.opencontainers.image.description',
  'org.opencontainers.image.licenses',
] as const;

export interface ImageFacts {
  /** Controller directory name under controllers/ (cluster, machine…). */
  readonly controller: string;
  readonly version: string;
  /** The git commit the image was built from. */
  readonly revision: string;
  readonly description: string;
  readonly license: string;
  /** The commit time (ISO 8601): the image's `created`, so rebuilding a commit gives the same digest. */
  readonly created: string;
}

/** `metal3-ts/controller-<c>:<version>`: the reference the install manifests' Deployments name. */
export function imageName(controller: string, version: string): string {
  return `metal3-ts/controller-${controller}:${version}`;
}

export function imageLabels(facts: ImageFacts): Record<(typeof LABEL_KEYS)[number], string> {
  return {
    'org.opencontainers.image.source': IMAGE_SOURCE,
    'org.opencontainers.image.version': facts.version,
    'org.opencontainers.image.revision': facts.revision,
    'org.opencontainers.image.title': `metal3-ts controller-${facts.controller}`,
    'org.opencontainers.image.description': facts.description,
    'org.opencontainers.image.licenses': facts.license,
  };
}

/** The OCI image configuration (image-spec config.md) for the given layers' uncompressed digests. */
export function imageConfig(facts: ImageFacts, diffIds: readonly string[], architecture: string): object {
  return {
    created: facts.created,
    architecture,
    os: 'linux',
    config: {
      User: IMAGE_USER,
      Entrypoint: [...ENTRYPOINT],
      Env: [...IMAGE_ENV],
      WorkingDir: WORKING_DIR,
      Labels: imageLabels(facts),
    },
    rootfs: { type: 'layers', diff_ids: [...diffIds] },
    history: [
      { created: facts.created, created_by: 'metal3-ts images: runtime (node and the shared libraries ldd lists, /etc/passwd, /etc/group)' },
      { created: facts.created, created_by: `metal3-ts images: controllers/${facts.controller} esbuild bundle` },
    ],
  };
}

/** Node's process.arch in OCI's (Go's) spelling. */
export function ociArchitecture(arch: string): string {
  const known: Record<string, string> = { x64: 'amd64', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x' };
  const found = known[arch];
  if (!found) throw new Error(`no OCI architecture for Node's "${arch}"`);
  return found;
}
