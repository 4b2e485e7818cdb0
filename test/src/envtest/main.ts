// Human entry point: `npm run env [-- --workload wl1 --always-allow --no-crds]` starts the environment,
// prints how to reach it and stays up until Ctrl-C (which tears everything down).
// `--measure` instead prints start timings and memory as JSON, stops and exits (for closing notes/CI).
import process from 'node:process';
import { startEnv } from './env.ts';
import { EnvtestError } from './errors.ts';

const args = process.argv.slice(2);
const workloads: string[] = [];
let alwaysAllow = false;
let crds = true;
let measure = false;
for (let i = 0; i < args.length; i++) {
  const arg = args[i];
  if (arg === '--workload' && args[i + 1]) workloads.push(args[++i]!);
  else if (arg === '--always-allow') alwaysAllow = true;
  else if (arg === '--no-crds') crds = false;
  else if (arg === '--measure') measure = true;
  else {
    console.error(`usage: npm run env -- [--workload <name>]... [--always-allow] [--no-crds] [--measure]`);
    process.exit(2);
  }
}

try {
  const env = await startEnv({
    authorization: alwaysAllow ? 'AlwaysAllow' : 'RBAC',
    crds: crds ? {} : false,
    workloadClusters: workloads,
    log: measure ? undefined : (m) => console.error(m),
  });
  if (measure) {
    const version = await env.admin.client.get<{ gitVersion: string }>('/version');
    const etcdVersion = await fetch(`${env.etcd.url}/version`).then((r) => r.json() as Promise<{ etcdserver: string }>);
    const started = performance.now();
    const rss = env.rss();
    await env.stop();
    const ms = (n: number) => Math.round(n);
    console.log(
      JSON.stringify({
        kubernetes: version.gitVersion,
        etcd: etcdVersion.etcdserver,
        crds: env.crds.length,
        workloadClusters: workloads.length,
        startMs: {
          total: ms(env.timings.totalMs),
          binaries: ms(env.timings.binariesMs),
          etcd: ms(env.timings.etcdMs),
          apiserver: ms(env.timings.apiserverMs),
          crds: ms(env.timings.crdsMs),
        },
        rssMiB: Object.fromEntries(Object.entries(rss).map(([k, v]) => [k, v === undefined ? null : Math.round(v / 1048576)])),
        stopMs: ms(performance.now() - started),
      }),
    );
    process.exit(0);
  }
  const mb = (n: number | undefined) => (n === undefined ? '?' : `${Math.round(n / 1048576)} MiB`);
  console.log(`
metal3-ts test environment is up (${Math.round(env.timings.totalMs)} ms; binaries ${Math.round(env.timings.binariesMs)} ms,
etcd ${Math.round(env.timings.etcdMs)} ms, kube-apiserver ${Math.round(env.timings.apiserverMs)} ms, ${env.crds.length} CRDs ${
    Math.round(env.timings.crdsMs)
  } ms)

  server:     ${env.admin.server}
  kubeconfig: ${env.kubeconfigPath}

  export KUBECONFIG=${env.kubeconfigPath}
${[...env.workloadClusters.values()].map((w) => `\n  workload ${w.name}: ${w.apiserver.server}\n    kubeconfig: ${w.apiserver.admin.kubeconfigPath}`).join('')}
  memory: ${Object.entries(env.rss()).map(([k, v]) => `${k} ${mb(v)}`).join(', ')}
  logs:   ${env.dir}

Press Ctrl-C to stop (processes are killed and the directory removed).`);
  // The SIGINT/SIGTERM hooks in processes.ts stop everything and exit; keep the event loop alive.
  setInterval(() => {}, 1 << 30);
} catch (error) {
  if (error instanceof EnvtestError) console.error(`envtest: ${error.message}`);
  else console.error(error);
  process.exit(1);
}
