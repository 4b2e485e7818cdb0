// The remediation's next step for each state of the objects (RS-8…RS-18), one row per rule.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decide, type RemediationView, type Step } from './decide.ts';

const base: RemediationView = {
  phase: 'Running',
  strategyType: 'Reboot',
  hostOnline: true,
  hostPoweredOn: true,
  rebootAnnotated: false,
  hasFinalizer: true,
  node: 'present',
  nodeDeleting: false,
  outOfService: false,
  tainted: false,
  drained: false,
  backupChanged: false,
  lastRemediatedMs: 0,
  timeoutMs: 300_000,
  retryLimit: 1,
  retryCount: 0,
  nowMs: 10_000,
};
const waiting: Partial<RemediationView> = { phase: 'Waiting', hostPoweredOn: true, hasFinalizer: false, node: 'absent' };

const rows: [string, Partial<RemediationView>, Step['do'], number?][] = [
  ['RS-8 host offline ⇒ Failed, whatever the phase', { hostOnline: false, phase: 'Waiting' }, 'fail'],
  ['RS-8 already Failed ⇒ nothing more', { hostOnline: false, phase: 'Failed' }, 'ignore'],
  ['RS-9 no strategy ⇒ nothing', { strategyType: undefined }, 'ignore'],
  ['RS-9 another strategy ⇒ nothing', { strategyType: 'Reprovision' }, 'ignore'],
  ['RS-10 new ⇒ Running, lastRemediated now', { phase: '' }, 'start'],
  ['RS-17 Deleting machine ⇒ nothing', { phase: 'Deleting machine' }, 'ignore'],
  ['RS-17 unknown phase ⇒ nothing', { phase: 'Pending' }, 'ignore'],
  ['RS-11 the Node is read before anything else', { node: 'unknown' }, 'needNode'],
  ['RS-12.1 finalizer first', { hasFinalizer: false }, 'addFinalizer'],
  ['RS-12.2 then the reboot annotation', {}, 'powerOff'],
  ['RS-12.3 host still on ⇒ wait for the host', { rebootAnnotated: true }, 'awaitPowerOff'],
  ['RS-12.4/RS-14 off, Node there, backup stale ⇒ back up', { rebootAnnotated: true, hostPoweredOn: false, backupChanged: true }, 'backUpNode'],
  ['RS-12.4 backed up ⇒ delete the Node', { rebootAnnotated: true, hostPoweredOn: false }, 'deleteNode'],
  ['RS-12.4 Node deleting ⇒ wait for it to go', { rebootAnnotated: true, hostPoweredOn: false, nodeDeleting: true }, 'awaitNodeGone'],
  ['RS-12.5 Node gone ⇒ Waiting', { rebootAnnotated: true, hostPoweredOn: false, node: 'absent' }, 'toWaiting'],
  ['RS-12.5 Node not readable (Forbidden) ⇒ Waiting', { rebootAnnotated: true, hostPoweredOn: false, node: 'forbidden' }, 'toWaiting'],
  ['R-14 out-of-service mode: taint the Node instead of backing it up', {
    rebootAnnotated: true,
    hostPoweredOn: false,
    outOfService: true,
    backupChanged: true,
  }, 'taintNode'],
  ['R-14 tainted, not drained ⇒ wait for the drain', { rebootAnnotated: true, hostPoweredOn: false, outOfService: true, tainted: true }, 'awaitDrain'],
  [
    'R-14 tainted and drained ⇒ Waiting (the Node is kept)',
    { rebootAnnotated: true, hostPoweredOn: false, outOfService: true, tainted: true, drained: true },
    'toWaiting',
  ],
  ['R-14 out-of-service mode, Node gone ⇒ Waiting', { rebootAnnotated: true, hostPoweredOn: false, outOfService: true, node: 'absent' }, 'toWaiting'],
  ['R-11 out-of-service mode: the Node back ⇒ lift the taint, drop the finalizer', {
    ...waiting,
    hasFinalizer: true,
    node: 'present',
    outOfService: true,
    tainted: true,
  }, 'untaintNode'],
  ['RS-13.1 Waiting ⇒ remove the reboot annotation', { ...waiting, rebootAnnotated: true, hostPoweredOn: false }, 'powerOn'],
  ['RS-13.2 host still off ⇒ wait for the host', { ...waiting, hostPoweredOn: false }, 'awaitPowerOn'],
  ['RS-13.3 Node back ⇒ restore it, drop the finalizer', { ...waiting, hasFinalizer: true, node: 'present' }, 'restoreNode'],
  ['RS-13.3 Node forbidden ⇒ drop the finalizer', { ...waiting, hasFinalizer: true, node: 'forbidden' }, 'releaseFinalizer'],
  ['RS-13.4 Node not back, before the timeout ⇒ wait for it (timer: the rest of the timeout)', { ...waiting, hasFinalizer: true }, 'awaitTimeout', 290_001],
  ['RS-13.4 restored, before the timeout ⇒ wait', { ...waiting, node: 'present' }, 'awaitTimeout', 290_001],
  ['RS-13.4 no timeout ⇒ 600 s (v1.13.2; E-22 crashed)', { ...waiting, timeoutMs: undefined, nowMs: 599_000 }, 'awaitTimeout', 1_001],
  ['RS-13.4 exactly at the timeout is not past it', { ...waiting, nowMs: 300_000 }, 'awaitTimeout', 1],
  ['RS-13.5 timed out, retries left ⇒ Running again', { ...waiting, nowMs: 300_001 }, 'retry'],
  ['RS-13.6/RS-18 timed out, retryCount = retryLimit ⇒ give up', { ...waiting, nowMs: 300_001, retryCount: 1 }, 'giveUp'],
  ['RS-18 a limit lowered below the count never ends the retries', { ...waiting, nowMs: 300_001, retryLimit: 1, retryCount: 2 }, 'retry'],
  ['RS-13.5 retryLimit 0 ⇒ give up at the first timeout', { ...waiting, nowMs: 300_001, retryLimit: 0 }, 'giveUp'],
];

for (const [title, change, expected, ms] of rows) {
  test(title, () => {
    const step = decide({ ...base, ...change });
    assert.is(step.do, expected);
    if (ms !== undefined) assert.is((step as { ms: number }).ms, ms);
  });
}

test('RS-18 with retryLimit 1 there are two power cycles before giving up', () => {
  let view: RemediationView = { ...base, ...waiting, nowMs: 300_001 };
  let cycles = 1;
  for (;;) {
    const step = decide(view);
    if (step.do === 'giveUp') break;
    assert.is(step.do, 'retry');
    cycles++;
    view = { ...view, retryCount: view.retryCount + 1 };
  }
  assert.is(cycles, 2);
});

test.run();
