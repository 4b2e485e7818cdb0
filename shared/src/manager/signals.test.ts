import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLogger } from '../log/logger.ts';
import { type ProcessPort, shutdownOnSignals, ShutdownRequested, type ShutdownSignalName } from './signals.ts';

const test = suite('shutdown signals');

function fakeProcess() {
  const handlers = new Set<(name: ShutdownSignalName) => void>();
  const exits: number[] = [];
  const port: ProcessPort = {
    onShutdownSignal(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    exit: (code) => exits.push(code),
  };
  return { port, exits, handlers, send: (name: ShutdownSignalName) => handlers.forEach((h) => h(name)) };
}

test('the first signal aborts gracefully; the second exits with 1 at once', () => {
  const p = fakeProcess();
  const { signal, dispose } = shutdownOnSignals(p.port, silentLogger);
  assert.not.ok(signal.aborted);
  p.send('SIGTERM');
  assert.ok(signal.aborted);
  assert.instance(signal.reason, ShutdownRequested);
  assert.is((signal.reason as ShutdownRequested).signalName, 'SIGTERM');
  assert.equal(p.exits, []);
  p.send('SIGINT');
  assert.equal(p.exits, [1]);
  dispose();
  assert.is(p.handlers.size, 0);
});

test.run();
