// controllers/Containerfile (for users with Docker or Podman) and the TS image builder describe the same
// image: user, entrypoint, bundle path, environment and labels. Docker cannot run here, so the file's
// final stage is read and compared with scripts/images/spec.ts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLE_PATH, ENTRYPOINT, IMAGE_ENV, IMAGE_SOURCE, IMAGE_USER, imageLabels, LABEL_KEYS, WORKING_DIR } from '../../../../scripts/images/spec.ts';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const test = suite('controllers/Containerfile matches the TS image builder (issue 15)');

/** Instructions of the last stage, continuation lines joined: [keyword, rest]. */
function finalStage(text: string): [string, string][] {
  const lines = text.replace(/\\\n\s*/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const from = lines.map((l) => l.split(/\s+/, 1)[0]!.toUpperCase()).lastIndexOf('FROM');
  return lines.slice(from).map((l) => {
    const at = l.search(/\s/);
    return [l.slice(0, at).toUpperCase(), l.slice(at + 1).trim()];
  });
}

/** `a="x" b="y z"` → { a: 'x', b: 'y z' }. */
function pairs(text: string): Record<string, string> {
  return Object.fromEntries([...text.matchAll(/([\w.-]+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
}

const stage = finalStage(readFileSync(join(root, 'controllers', 'Containerfile'), 'utf8'));
const all = (keyword: string) => stage.filter(([k]) => k === keyword).map(([, rest]) => rest);
const only = (keyword: string) => {
  const found = all(keyword);
  assert.is(found.length, 1, `one ${keyword} in the final stage`);
  return found[0]!;
};

test('the same numeric user, entrypoint, working directory and bundle path', () => {
  assert.is(only('USER'), IMAGE_USER);
  assert.equal(JSON.parse(only('ENTRYPOINT')), ENTRYPOINT);
  assert.is(only('WORKDIR'), WORKING_DIR);
  assert.ok(only('COPY').endsWith(` ${BUNDLE_PATH}`), "the bundle is copied to the entrypoint's path");
  assert.equal(all('ENV'), IMAGE_ENV.map((e) => e), 'the same environment');
  assert.is(all('RUN').length, 0, 'no RUN in the runtime stage (it has no shell)');
});

test('the same org.opencontainers.image labels, with the same values for a controller', () => {
  const labels = pairs(only('LABEL'));
  assert.equal(Object.keys(labels).sort(), [...LABEL_KEYS].sort());
  const expected = imageLabels({
    controller: 'machine',
    version: '${VERSION}',
    revision: '${REVISION}',
    description: 'metal3-ts machine controller',
    license: 'Apache-2.0',
    created: '',
  });
  const forMachine = Object.fromEntries(Object.entries(labels).map(([k, v]) => [k, v.replaceAll('${CONTROLLER}', 'machine')]));
  assert.equal(forMachine, expected);
  assert.is(labels['org.opencontainers.image.source'], IMAGE_SOURCE);
  const pkg = JSON.parse(readFileSync(join(root, 'controllers', 'machine', 'package.json'), 'utf8')) as { description: string; license: string };
  assert.is(pkg.description, expected['org.opencontainers.image.description'], "the description pattern is the packages'");
});

test.run();
