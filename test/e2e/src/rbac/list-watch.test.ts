// Issue 21 point 3, reads: for every list and watch verb of every controller's ClusterRole, that verb
// taken away makes /readyz fail within 30 s naming the verb and resource (and counts
// informer_list_watch_errors_total); given back, /readyz is ok again. One apiserver, each controller
// in-process as a user bound to its own copy of the role, cases one after another.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freshNamespace, withSharedEnv } from '@metal3-ts/test/envtest/suite';
import { eventually } from '@metal3-ts/test/testing/eventually';
import { isInformerVerb } from './cases.ts';
import { bindUser, startInProcess } from './in-process.ts';
import { clusterRoleOf, CONTROLLERS, rulesWithout, verbCases } from './verbs.ts';

const test = suite('RBAC: a list or watch taken away fails /readyz naming verb and resource; given back, ready again');
const env = withSharedEnv(test);

const VISIBLE_MS = 30_000;
let n = 0;
/** Seconds from the verb taken away to the failure shown, and from given back to converged, per case. */
const timings: { visible: number; converged: number }[] = [];
const since = (start: number) => (performance.now() - start) / 1000;

for (const controller of CONTROLLERS) {
  const cases = verbCases(controller).filter(isInformerVerb);
  test(`${controller}: ${cases.map((c) => `${c.verb} ${c.resource}`).join(', ')}`, async () => {
    const namespace = await freshNamespace(env().admin.client, `rbac-${controller}`);
    for (const c of cases) {
      const user = await bindUser(env(), controller, `rbac-lw-${controller}-${++n}`, rulesWithout(clusterRoleOf(controller), c));
      const running = await startInProcess(env(), controller, user.name, namespace);
      const started = performance.now();
      try {
        const expected = `cannot ${c.verb} ${c.resource} `;
        const failing = await eventually(
          `/readyz to name "${expected}"`,
          async () => {
            const probe = await running.readyz();
            return probe.status === 500 && probe.body.includes(expected) ? probe.body : undefined;
          },
          { timeoutMs: VISIBLE_MS, pollMs: 100, explain: () => running.errors().slice(-3) },
        );
        const visible = since(started);
        assert.match(failing, /403 Forbidden/);
        assert.ok(
          running.errors().some((l) =>
            l.includes('informer cannot keep its cache current') && l.includes(`"verb":"${c.verb}"`) && l.includes(`"resource":"${c.resource}"`)
          ),
          'an error line names verb and resource',
        );
        const counted = running.registry.counter('informer_list_watch_errors_total', '', ['resource', 'verb', 'code']).get({
          resource: c.resource,
          verb: c.verb,
          code: '403',
        });
        assert.ok(counted > 0, 'informer_list_watch_errors_total counted it');
        await user.restore();
        const restored = performance.now();
        await eventually('/readyz ok after the verb is given back', async () => ((await running.readyz()).status === 200 ? true : undefined), {
          timeoutMs: VISIBLE_MS,
          pollMs: 100,
        });
        timings.push({ visible, converged: since(restored) });
      } finally {
        await running.stop();
      }
    }
  });
}

test.after(() => {
  const max = (key: 'visible' | 'converged') => Math.max(0, ...timings.map((t) => t[key])).toFixed(1);
  console.log(`  ${timings.length} cases: failure shown within ${max('visible')} s at most, converged within ${max('converged')} s of the verb given back`);
});

test.run();
