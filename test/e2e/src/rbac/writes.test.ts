// Issue 21 point 3, writes: for each write case of cases.ts, that verb taken away from the
// controller's ClusterRole is visible within 30 s on the object the controller reports on (a condition
// or errorMessage naming verb and resource, unless the refused write is that status itself) and as a
// Warning event RequestRefused naming them; given back, the scene converges. One apiserver with the
// real Cluster API managers (CAPI_VERSION, default the newest), each controller in-process as a user
// bound to its own copy of the role, cases one after another.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, Transport } from '@metal3-ts/generated';
import { EventResource } from '@metal3-ts/generated/core/v1';
import { resourceName } from '@metal3-ts/shared/meta/resource-name';
import { freshNamespace, withSharedEnv } from '@metal3-ts/test/envtest/suite';
import { withSharedClusterApi } from '@metal3-ts/test/testing/cluster-api';
import { eventually } from '@metal3-ts/test/testing/eventually';
import { WRITE_CASES } from './cases.ts';
import { SceneClock } from './clock.ts';
import { bindUser, startInProcess } from './in-process.ts';
import { sceneFor } from './scenes.ts';
import { clusterRoleOf, rulesWithout } from './verbs.ts';

const test = suite('RBAC: a write taken away shows on the object and as a Warning event naming verb and resource; given back, converges');
const env = withSharedEnv(test);
withSharedClusterApi(test, env);

const VISIBLE_MS = 30_000;
const CONVERGE_MS = 60_000;
let admin: Client;
let n = 0;
/** Seconds from the verb taken away to the failure shown, and from given back to converged, per case. */
const timings: { visible: number; converged: number }[] = [];
const since = (start: number) => (performance.now() - start) / 1000;

test.before(() => {
  admin = new Client(Transport.fromConnection(env().admin));
});
test.after(() => admin?.transport.close());

for (const c of WRITE_CASES) {
  const resource = resourceName(c.plural, c.group);
  test(`${c.controller}: ${c.verb} ${resource} → ${c.shows === 'object' ? 'condition/errorMessage and ' : ''}Warning event`, async () => {
    const namespace = await freshNamespace(env().admin.client, `rbac-w-${c.controller}`);
    const user = await bindUser(env(), c.controller, `rbac-w-${c.controller}-${++n}`, rulesWithout(clusterRoleOf(c.controller), c));
    const clock = new SceneClock();
    const running = await startInProcess(env(), c.controller, user.name, namespace, clock);
    const scene = await sceneFor(c.scene ?? c.controller, env(), admin, namespace, clock);
    const started = performance.now();
    try {
      const expected = `${c.verb} ${resource} refused: 403 Forbidden`;
      const explain = () => running.errors().slice(-3);
      const reason = c.eventReason ?? 'RequestRefused';
      const on = c.eventOn ?? { kind: scene.descriptor.kind, name: scene.name };
      await eventually(
        `a Warning event ${reason} on ${on.kind} ${on.name} saying "${expected}"`,
        async () => {
          const events = (await admin.api(EventResource, namespace).list()).items;
          return events.find((e) =>
            e.type === 'Warning' && e.reason === reason && e.involvedObject.kind === on.kind && e.involvedObject.name === on.name &&
            e.message?.includes(expected)
          );
        },
        { timeoutMs: VISIBLE_MS, pollMs: 200, explain },
      );
      if (c.shows === 'object') {
        await eventually(
          `${scene.descriptor.kind} ${scene.name} to say "${expected}"`,
          async () => (scene.reported(await admin.api(scene.descriptor, namespace).get(scene.name)).some((m) => m.includes(expected)) ? true : undefined),
          { timeoutMs: VISIBLE_MS, pollMs: 200, explain },
        );
      }
      const visible = since(started);
      assert.ok(running.errors().some((l) => l.includes(expected)), 'the error log names the refusal too');
      await user.restore();
      const restored = performance.now();
      await eventually('the scene to converge once the verb is given back', async () => ((await scene.converged()) ? true : undefined), {
        timeoutMs: CONVERGE_MS,
        pollMs: 200,
        explain,
      });
      timings.push({ visible, converged: since(restored) });
    } finally {
      await running.stop();
      await scene.stop();
    }
  });
}

test.after(() => {
  const max = (key: 'visible' | 'converged') => Math.max(0, ...timings.map((t) => t[key])).toFixed(1);
  console.log(`  ${timings.length} cases: failure shown within ${max('visible')} s at most, converged within ${max('converged')} s of the verb given back`);
});

test.run();
