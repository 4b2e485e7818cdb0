// R-14 / RS-16 / E-23: when the out-of-service-taint mode is on, and what the taint looks like.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Node } from '@metal3-ts/generated/core/v1';
import { hasOutOfServiceTaint, supportsOutOfService, taintsWith, taintsWithout } from './out-of-service.ts';

test('R-14 on from 1.28, major and minor read as plain integers (E-23: "28+" is off)', () => {
  const rows: [string, string, boolean][] = [['1', '27', false], ['1', '28', true], ['1', '36', true], ['2', '0', true], ['1', '28+', false], ['', '', false]];
  for (const [major, minor, on] of rows) assert.is(supportsOutOfService({ major, minor }), on, `${major}.${minor}`);
});

test('RS-12 the taint is added with timeAdded, matched without it, and removed alone', () => {
  const node: Node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' }, spec: { taints: [{ key: 'other', effect: 'NoSchedule' }] } };
  const tainted = { ...node, spec: { taints: taintsWith(node, '2026-01-01T00:00:00Z') } };
  assert.ok(hasOutOfServiceTaint(tainted));
  assert.equal(tainted.spec.taints[1], {
    key: 'node.kubernetes.io/out-of-service',
    value: 'nodeshutdown',
    effect: 'NoExecute',
    timeAdded: '2026-01-01T00:00:00Z',
  });
  assert.equal(taintsWithout(tainted), [{ key: 'other', effect: 'NoSchedule' }]);
  assert.not.ok(hasOutOfServiceTaint(node));
});

test.run();
