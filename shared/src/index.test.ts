import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as shared from './index.ts';

const test = suite('@metal3-ts/shared entry point');

test('exposes the pieces a controller package wires together', () => {
  for (
    const name of [
      'InformerFactory',
      'controllerFor',
      'PatchHelper',
      'Manager',
      'LeaderElector',
      'ClusterCache',
      'EventRecorder',
      'runMain',
      'newClient',
      'TerminalError',
      'setReadySummary',
      'resourceNotPausedAndHasFilterLabel',
    ]
  ) {
    assert.ok(name in shared, `${name} is exported`);
  }
});

test.run();
