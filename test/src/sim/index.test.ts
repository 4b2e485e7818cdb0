// All simulators together: they build with distinct controller names, share one set of informers,
// start, sync and stop cleanly.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freshNamespace, withSharedEnv } from '../envtest/suite.ts';
import { allSimulators, simulatorDeps, startSimulators } from './index.ts';

const test = suite('all simulators');
const env = withSharedEnv(test);

test('every simulator builds with a distinct name, and all start, sync and stop together', async () => {
  const namespace = await freshNamespace(env().admin.client, 'sim-all');
  const deps = simulatorDeps(env().admin);
  const runnables = allSimulators(deps, { workload: { env: env(), namespace } });
  const names = runnables.map((r) => r.name);
  assert.is(new Set(names).size, names.length, `names: ${names.join(', ')}`);
  assert.ok(names.length >= 3, `${names.length} runnables`);
  const running = await startSimulators(deps, runnables);
  assert.ok(deps.informers.hasSynced());
  await running.stop();
});

test.run();
