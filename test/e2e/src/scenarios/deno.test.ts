// Scenario 7: the bring-up of scenario 1 with the machine controller running under Deno 2 (the other
// four under Node 24), from the same bundle format.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type Lab, startLab } from '../lab/lab.ts';
import { CAPI, CONTROL_PLANE_REPLICAS, controllerProblems, hostsByMachine, METAL3, nodes, RUN, running, seconds } from './support.ts';

const test = suite(`end to end: bring-up with the machine controller under Deno 2 (${RUN})`);
let lab: Lab;

test.before(async () => {
  lab = await startLab({
    hosts: CONTROL_PLANE_REPLICAS + 3,
    controlPlaneHosts: CONTROL_PLANE_REPLICAS,
    runtimes: { machine: 'deno' },
    capi: CAPI,
    metal3Version: METAL3,
  });
});

test.after(async () => {
  await lab?.stop();
});

test('7 Deno: the seed 003 cluster reaches Running with metal3machine reconciled by the Deno process', async () => {
  const t0 = performance.now();
  assert.is(lab.controllers.get('machine')?.runtime, 'deno');
  const s = await running(lab, 180_000);
  console.log(`e2e wall time: bring-up under Deno ${seconds(t0)} s (${RUN})`);
  const byMachine = hostsByMachine(s);
  const workloadNodes = await nodes(lab.client, lab.namespace);
  for (const m of s.machines) {
    const name = m.spec?.infrastructureRef.name ?? '';
    assert.is(m.spec?.providerID, `metal3://${lab.namespace}/${byMachine.get(name) ?? '?'}/${name}`);
    assert.ok(workloadNodes.some((n) => n.spec?.providerID === m.spec?.providerID), `${name}: a Node with its provider ID`);
  }
  const deno = lab.controllers.get('machine')?.process;
  assert.ok(deno?.lines.some((l) => l.msg === 'became leader'), 'the Deno process leads its own Lease');
  assert.equal(controllerProblems(lab).filter((l) => l.startsWith('[machine]') && l.includes('"level":"error"')), []);
});

test.run();
