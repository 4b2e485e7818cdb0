// Fixture for teardown.test.ts: starts a minimal environment (no CRDs), prints its child PIDs and
// directory as one JSON line, then waits to be signalled or killed.
import { startEnv } from '../env.ts';

const env = await startEnv({ crds: false });
console.log(JSON.stringify({ pids: [env.etcd.process.pid, env.management.process.pid], dir: env.dir }));
setInterval(() => {}, 1 << 30);
