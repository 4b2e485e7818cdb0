// The lab's command line refuses bad flags before starting anything, naming the flag.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runtimes } from '@metal3-ts/test/harness/controller-process';

const main = fileURLToPath(new URL('./main.ts', import.meta.url));

test('bad flags exit 2 with the flag named and the usage, before anything starts', () => {
  for (
    const [args, named] of [
      [['--hosts', 'many'], '--hosts must be a whole number'],
      [['--speed', 'fast'], '--speed must be instant or bmoTestMode'],
      [['--deno', 'bmo'], '--deno takes one of cluster, machine, template, dataclaim, data'],
      [['--capi', 'v1.9.0'], '--capi must be one of v1.13.5, v1.10.10, got "v1.9.0"'],
      [['--metal3-version', 'v1alpha5'], '--metal3-version must be one of v1beta1, v1beta2, got "v1alpha5"'],
      [['--color'], "Unknown option '--color'"],
      [['--images', '--deno', 'data'], '--images and --deno exclude each other'],
      [['--manifests', '/no/such/dir'], '--manifests: no such file or directory: /no/such/dir'],
    ] as const
  ) {
    const run = spawnSync(runtimes.node, [main, ...args], { encoding: 'utf8', timeout: 20_000 });
    assert.is(run.status, 2, args.join(' '));
    assert.ok(run.stderr.includes(named), `${args.join(' ')}: ${run.stderr}`);
    assert.ok(run.stderr.includes('usage: npm start'), 'the usage follows');
  }
});

test.run();
