// The CAPM3 releases our CRDs are compared with, and which API versions of each: v1.12.7 for v1beta1
// (what the controllers speak today) and v1.13.2 for v1beta1 and v1beta2 (issue 18). Their CRDs are
// read through the sha256 pins of codegen/upstream.json (both are pinned there as "reference"), so the
// check never runs on unverified bytes, and a bump moves them like any other pin.
import { parseAllDocuments } from 'yaml';
import { resolveUpstream } from '@metal3-ts/codegen/upstream';
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

/** The verified CRD files of one CAPM3 release. */
export async function referenceFiles(release: string): Promise<{ readonly file: string; readonly text: string }[]> {
  const pinned = (await resolveUpstream()).filter((s) => s.release.project === capm3 && s.release.version === release);
  if (pinned.length === 0) throw new Error(`CAPM3 ${release} is not pinned in codegen/upstream.json (add it with "use": "reference")`);
  return pinned.map((s) => ({ file: s.entry.file, text: s.text }));
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
