// TEMPORARY exploration (not committed): idle RSS of the machine controller under V8 flag sets.
import process from 'node:process';
import { startEnv } from '@metal3-ts/test/envtest/env';
import { freshNamespace } from '@metal3-ts/test/envtest/suite';
import { ControllerProcess, httpGet, runtimes, sleep } from '@metal3-ts/test/harness/controller-process';
import { IMAGE_ENV, imageEnvironment } from '../../scripts/images/spec.ts';
import { bundled, memoryOf, MiB, ready, stop } from './process-rss.ts';

const sets = process.argv.slice(2).map((s) => s.split(' ').filter(Boolean));
const which = process.env['WHICH'] ?? 'machine';
const env = await startEnv({ authorization: 'RBAC' });
try {
  await bundled([which], async (bundles) => {
    const namespace = await freshNamespace(env.admin.client, 'explore');
    for (let round = 0; round < Number(process.env['ROUNDS'] ?? 2); round++) {
      for (const flags of sets) {
        const path = bundles.get(which)!;
        const args = [
          '--kubeconfig',
          env.kubeconfigPath,
          '--namespace',
          namespace,
          '--metrics-bind-address',
          '127.0.0.1:0',
          '--health-probe-bind-address',
          '127.0.0.1:0',
        ];
        const deno = flags[0] === 'deno';
        const argv = deno ? ['run', '--quiet', '-A', ...flags.slice(1), path, ...args] : [...flags, path, ...args];
        const p = new ControllerProcess(deno ? 'deno' : 'node', path, args, {
          command: deno ? runtimes.deno : runtimes.node,
          args: argv,
          env: { ...process.env, ...imageEnvironment(IMAGE_ENV), NO_COLOR: '1', KUBECONFIG: '' },
        });
        try {
          await ready(p);
          await sleep(8000);
          const m = memoryOf(p.child.pid!);
          const text = (await httpGet(await p.address('metrics'), '/metrics')).body;
          const s = (n: string) => (Number(new RegExp(`^${n.replace(/[{}"]/g, (c) => `\\${c}`)} (\\S+)$`, 'm').exec(text)?.[1]) / MiB).toFixed(1);
          console.log(
            `${flags.join(' ') || '(none)'}: rss ${(m.rss / MiB).toFixed(1)} anon ${(m.anon / MiB).toFixed(1)} file ${(m.file / MiB).toFixed(1)} heap ${
              s('nodejs_heap_size_total_bytes')
            }/${s('nodejs_heap_size_used_bytes')} code ${s('nodejs_heap_space_size_total_bytes{space="code_space"}')} ext ${s('nodejs_external_memory_bytes')}`,
          );
          if (process.env['SNAP']) {
            p.child.kill('SIGUSR2');
            await sleep(8000);
          }
        } finally {
          await stop(p);
        }
      }
    }
  });
} finally {
  await env.stop();
}
