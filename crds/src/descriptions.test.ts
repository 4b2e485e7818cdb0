// Our CRDs' prose is our own: no description of any version repeats upstream's, and every kind, spec
// and status is described, in every version.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { resolveUpstream } from '@metal3-ts/codegen/upstream';
import { parseAllDocuments } from 'yaml';
import { descriptionsOf, loadOurCrds, ourKinds, type Crd } from './crds.ts';
import { references, referenceFiles } from './references.ts';

const ours = loadOurCrds();

/** Every upstream text whose descriptions ours must not repeat: all pinned files and the reference releases. */
async function upstreamTexts(): Promise<string[]> {
  const texts = (await resolveUpstream()).map((s) => s.text);
  for (const { release } of references) for (const f of await referenceFiles(release)) texts.push(f.text);
  return texts;
}

test('no description is, or contains 40 characters of, an upstream description', async () => {
  const normalise = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();
  const whole = new Set<string>();
  const windows = new Set<string>();
  for (const text of await upstreamTexts()) {
    for (const doc of parseAllDocuments(text)) {
      const crd = doc.toJS() as Crd | null;
      if (crd?.kind !== 'CustomResourceDefinition') continue;
      for (const { text } of descriptionsOf(crd)) {
        const t = normalise(text);
        whole.add(t);
        for (let i = 0; i + 40 <= t.length; i++) windows.add(t.slice(i, i + 40));
      }
    }
  }
  const copied: string[] = [];
  for (const kind of ourKinds) {
    for (const { where, text } of descriptionsOf(ours.get(kind)!.crd)) {
      const t = normalise(text);
      let hit = whole.has(t) ? t : undefined;
      for (let i = 0; !hit && i + 40 <= t.length; i++) if (windows.has(t.slice(i, i + 40))) hit = t.slice(i, i + 40);
      if (hit) copied.push(`${kind} ${where}: "${hit}"`);
    }
  }
  assert.equal(copied, [], `upstream prose found:\n${copied.join('\n')}`);
});

test('every kind, spec and status has a description of ours, in every version', () => {
  for (const kind of ourKinds) {
    for (const version of ours.get(kind)!.crd.spec.versions) {
      const root = version.schema.openAPIV3Schema;
      assert.ok(root.description, `${kind} ${version.name} root`);
      for (const part of ['spec', 'status'] as const) {
        const node = root.properties?.[part];
        if (node) assert.ok(node.description, `${kind} ${version.name} .${part}`);
      }
    }
  }
});

test.run();
