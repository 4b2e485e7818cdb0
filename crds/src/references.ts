// The CAPM3 releases our CRDs are compared with, and which API versions of each: v1.12.7 for v1beta1
// (what the controllers speak today) and v1.13.2 for v1beta1 and v1beta2 (issue 18). Their CRDs are
// read from the sha256 pins of codegen/upstream.json; a release not pinned there yet is read from the
// same directory against the pins below, so the check never runs on unverified bytes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { resolveUpstream, sha256, upstreamDirectory } from '@metal3-ts/codegen/upstream';
import { group, type Crd } from './crds.ts';

export const capm3 = 'cluster-api-provider-metal3';

export interface Reference {
  readonly release: string;
  /** Versions of our CRDs compared with the same version of this release. */
  readonly versions: readonly string[];
}

export const references: readonly Reference[] = [
  { release: 'v1.12.7', versions: ['v1beta1'] },
  { release: 'v1.13.2', versions: ['v1beta1', 'v1beta2'] },
];

/**
 * sha256 of each reference release's CRD files, used for a release codegen/upstream.json does not pin:
 * v1.13.2 until issue 18 part A pins it, v1.12.7 if codegen stops pinning it while v1beta1 is still
 * compared with it. compat.test.ts checks that a release pinned in both places has the same sums.
 */
export const fallbackPins: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'v1.12.7': {
    'infrastructure.cluster.x-k8s.io_metal3clusters.yaml': 'f5d0f19dfd9d3316e94f5c17403ff88988032c5398c3fe90d089605fb4dbad70',
    'infrastructure.cluster.x-k8s.io_metal3clustertemplates.yaml': '7159c8df267c5815cef31b63722895dbc97f32c131bb8decd73aaee09fe7aeae',
    'infrastructure.cluster.x-k8s.io_metal3dataclaims.yaml': 'ec74105d09ed47c8bb740b31fdeda896eab44d0a0e5e7e06a32f4868ab62a489',
    'infrastructure.cluster.x-k8s.io_metal3datas.yaml': 'ba986a266bbc0cf23005df9ce20ca18f08f099ccbc536f06ed7701c5b2dd7575',
    'infrastructure.cluster.x-k8s.io_metal3datatemplates.yaml': '03d864a87c287ae8446d75be42e9dc7bde0bc5a624cc5048eccbff3595497471',
    'infrastructure.cluster.x-k8s.io_metal3machines.yaml': '040f8c9bf55119810c60d22576ee0ad1bfe97ea72b666d21beb78dda5f458e2a',
    'infrastructure.cluster.x-k8s.io_metal3machinetemplates.yaml': '9ae488e3be144b8128dec6d492f2beb6bfec7e555b9274edf8b6d02b3d0a3311',
    'infrastructure.cluster.x-k8s.io_metal3remediations.yaml': 'f5c0debebaca161b7a5137f6fbf6931583b02e36cadc4763db52cbb9c3697ea1',
    'infrastructure.cluster.x-k8s.io_metal3remediationtemplates.yaml': '9a3bdd973abdb659b5a95219e20a25a774a5226c6c3a486ddf41a21553527173',
  },
  'v1.13.2': {
    'infrastructure.cluster.x-k8s.io_metal3clusters.yaml': '32c45247cdd156f1ff060206292dec4b4cbee6cbf3dea0f7a868908b72a2978e',
    'infrastructure.cluster.x-k8s.io_metal3clustertemplates.yaml': 'b5eadf25987bbaea6b671d2968b822cd3347fdeef82f04622a8d9d4132669a16',
    'infrastructure.cluster.x-k8s.io_metal3dataclaims.yaml': 'ceb7d71b21266e5c83975c08bf51eb20afed8ed2f354b06df0e1b0e9ed731fad',
    'infrastructure.cluster.x-k8s.io_metal3datas.yaml': '758b7e65859b83b83bf6f3e4feab6b1778272826b8ce4b295047d59eee551f7a',
    'infrastructure.cluster.x-k8s.io_metal3datatemplates.yaml': '1942687f2c4a85d941b8421aebddb1f91aa03d1f5cbd53c3914938f472ea328c',
    'infrastructure.cluster.x-k8s.io_metal3machines.yaml': '7f65e0fc11c0b87cf10f79c87695c10ae0919dabcd20a484cba4b1cb625523bc',
    'infrastructure.cluster.x-k8s.io_metal3machinetemplates.yaml': 'ef70f8437cf5536d616c89a83d80ee75f9c8257dab5248aaebc79b4c4ebfabfc',
    'infrastructure.cluster.x-k8s.io_metal3remediations.yaml': 'a3c44e0fb60e500ba49e803783e3610b931955f40036ffe0ca97b9f538c9c70f',
    'infrastructure.cluster.x-k8s.io_metal3remediationtemplates.yaml': '84a51edf08c0099a4a6b85381341ec80d3e44f16fe4b7cf30e1814076c07bc84',
  },
};

export interface ReferenceFile {
  readonly file: string;
  readonly text: string;
  /** Where the pin came from: codegen/upstream.json or the fallback above. */
  readonly pinnedBy: 'upstream.json' | 'fallback';
}

/** The verified CRD files of one CAPM3 release. */
export async function referenceFiles(release: string): Promise<ReferenceFile[]> {
  const pinned = (await resolveUpstream()).filter((s) => s.release.project === capm3 && s.release.version === release);
  if (pinned.length > 0) return pinned.map((s) => ({ file: s.entry.file, text: s.text, pinnedBy: 'upstream.json' }));
  const pins = fallbackPins[release];
  if (!pins) throw new Error(`CAPM3 ${release} is pinned neither in codegen/upstream.json nor in crds/src/references.ts`);
  // The same directory codegen reads (../shared/crds or METAL3_TS_UPSTREAM_CRDS), laid out <project>-<release>/.
  return Object.entries(pins).map(([file, pin]) => {
    const path = join(upstreamDirectory(), `${capm3}-${release}`, file);
    const text = readFileSync(path, 'utf8');
    if (sha256(text) !== pin) throw new Error(`${path}: sha256 ${sha256(text)}, pinned ${pin} (crds/src/references.ts)`);
    return { file, text, pinnedBy: 'fallback' };
  });
}

/** One CAPM3 release's CRDs, keyed by kind. */
export async function loadReferenceCrds(release: string): Promise<Map<string, Crd>> {
  const out = new Map<string, Crd>();
  for (const { text } of await referenceFiles(release)) {
    for (const doc of parseAllDocuments(text)) {
      const crd = doc.toJS() as Crd | null;
      if (crd?.kind === 'CustomResourceDefinition' && crd.spec.group === group) out.set(crd.spec.names.kind, crd);
    }
  }
  return out;
}
