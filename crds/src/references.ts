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
 * sha256 of CAPM3 v1.13.2's CRD files, for as long as codegen/upstream.json does not pin that release
 * (issue 18 part A adds it; compat.test.ts then checks both agree, and this list can go).
 */
export const fallbackPins: Readonly<Record<string, Readonly<Record<string, string>>>> = {
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
