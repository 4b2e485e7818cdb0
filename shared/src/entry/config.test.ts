import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { flag, FlagError } from './flags.ts';
import { connectionFor, DEFAULT_LEADER_ELECTION_ID, parseArgs, watchTimeoutsWithin } from './config.ts';

const test = suite('manager config');
const dir = mkdtempSync(join(tmpdir(), 'entry-config-'));
const kubeconfig = join(dir, 'kubeconfig');
writeFileSync(
  kubeconfig,
  [
    'apiVersion: v1',
    'kind: Config',
    'clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]',
    'users: [{name: u, user: {token: abc}}]',
    'contexts: [{name: ctx, context: {cluster: c, user: u}}]',
    'current-context: ctx',
  ].join('\n'),
);
const noSa = join(dir, 'no-service-account');
const none = { env: {}, home: join(dir, 'home'), serviceAccountDir: noSa };

function flagError(fn: () => unknown): FlagError {
  try {
    fn();
  } catch (error) {
    if (error instanceof FlagError) return error;
    throw error;
  }
  throw new Error('expected a FlagError');
}

test('defaults are CAPM3 defaults', () => {
  const { config } = parseArgs(['--kubeconfig', kubeconfig], none);
  assert.is(config.kubeApiQps, 20);
  assert.is(config.kubeApiBurst, 30);
  assert.is(config.leaderElection, undefined);
  assert.is(config.metricsBindAddress, ':8080');
  assert.is(config.healthProbeBindAddress, ':9440');
  assert.is(config.gracefulShutdownTimeoutMs, 30_000);
  assert.is(config.logLevel, 'info');
  assert.is(config.concurrency, 10);
  assert.is(config.namespace, undefined);
  assert.is(config.kubeconfigSource, '--kubeconfig');
});

test('request deadlines and the watch inactivity timeout: defaults, flags, 0 turns a deadline off', () => {
  const defaults = parseArgs(['--kubeconfig', kubeconfig], none).config;
  assert.equal(defaults.requestDeadlines, { default: 30_000, list: 60_000 });
  assert.is(defaults.watchInactivityTimeoutMs, 55_000);
  const set = parseArgs(['--kubeconfig', kubeconfig, '--kube-api-timeout=2s', '--kube-api-list-timeout', '0', '--watch-inactivity-timeout=3s'], none).config;
  assert.equal(set.requestDeadlines, { default: 2000, list: 0 });
  assert.is(set.watchInactivityTimeoutMs, 3000);
  assert.is(flagError(() => parseArgs(['--kubeconfig', kubeconfig, '--watch-inactivity-timeout=10ms'], none)).flag, '--watch-inactivity-timeout');
  assert.is(flagError(() => parseArgs(['--kubeconfig', kubeconfig, '--kube-api-timeout=soon'], none)).flag, '--kube-api-timeout');
});

test('issue 21.2: every server-side watch timeout ends below the inactivity timeout, so only a dead watch goes silent', () => {
  const cases: Array<[inactivityMs: number, min: number, max: number]> = [
    [55_000, 40, 50], // the default: a black-holed watch is found within 55 s
    [600_000, 476, 595],
    [4_000, 3, 3], // the fault tests' setting
    [1_000, 1, 1],
  ];
  for (const [inactivityMs, min, max] of cases) {
    const range = watchTimeoutsWithin(inactivityMs);
    assert.equal(range, { min, max }, `inactivity ${inactivityMs} ms`);
    assert.ok(range.max * 1000 < inactivityMs || inactivityMs <= 1_000, `ends before ${inactivityMs} ms`);
  }
});

test('leader election: id and timings from flags; namespace from flag, --namespace or POD_NAMESPACE', () => {
  const a = parseArgs([
    '--leader-elect',
    '--leader-elect-namespace=ops',
    '--leader-elect-lease-duration=2s',
    '--leader-elect-renew-deadline=1500ms',
    '--leader-elect-retry-period=300ms',
  ], none);
  assert.equal(a.config.leaderElection, { id: DEFAULT_LEADER_ELECTION_ID, namespace: 'ops', leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 300 });
  assert.is(parseArgs(['--leader-elect', '--namespace', 'team'], none).config.leaderElection?.namespace, 'team');
  assert.is(parseArgs(['--leader-elect'], { ...none, env: { POD_NAMESPACE: 'pod-ns' } }).config.leaderElection?.namespace, 'pod-ns');
  assert.is(parseArgs(['--leader-elect', '--namespace=x'], { ...none, leaderElectionId: 'mine' }).config.leaderElection?.id, 'mine');
  assert.is(flagError(() => parseArgs(['--leader-elect'], none)).flag, '--leader-elect-namespace');
  assert.match(
    flagError(() => parseArgs(['--leader-elect', '--namespace=x', '--leader-elect-renew-deadline=20s'], none)).message,
    /lease duration .* must be greater than the renew deadline/,
  );
});

test('bind addresses are checked at parse time', () => {
  assert.is(flagError(() => parseArgs(['--metrics-bind-address', '8080'], none)).flag, '--metrics-bind-address');
  assert.is(parseArgs(['--metrics-bind-address=0'], none).config.metricsBindAddress, '0');
});

test("the controller's own flags are parsed with the common ones, in any order", () => {
  const extra = { 'enable-bmh-name-based-preallocation': flag.bool(false, 'D-17') };
  const { config, flags } = parseArgs(['--enable-bmh-name-based-preallocation', '--namespace=a'], { ...none, extra });
  assert.equal(flags, { 'enable-bmh-name-based-preallocation': true });
  assert.is(config.namespace, 'a');
  assert.throws(() => parseArgs([], { ...none, extra: { namespace: flag.string('', 'clash') } }), /clashes/);
});

test('kubeconfig: --kubeconfig, then KUBECONFIG, then in-cluster, then ~/.kube/config; errors name the source', () => {
  assert.is(connectionFor(parseArgs(['--kubeconfig', kubeconfig], none).config).server, 'https://127.0.0.1:6443');
  const fromEnv = parseArgs([], { ...none, env: { KUBECONFIG: kubeconfig } }).config;
  assert.is(fromEnv.kubeconfigSource, 'KUBECONFIG');
  assert.is(connectionFor(fromEnv).token, 'abc');
  const inCluster = parseArgs([], { ...none, env: { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' } }).config;
  assert.is(inCluster.kubeconfigSource, 'in-cluster');
  assert.match(flagError(() => connectionFor(parseArgs([], none).config, none)).message, /no kubeconfig found/);
  assert.match(
    flagError(() => connectionFor(parseArgs(['--kubeconfig', join(dir, 'missing')], none).config)).message,
    /^--kubeconfig: kubeconfig .*missing: cannot read/,
  );
  assert.is(flagError(() => connectionFor(parseArgs([], { ...none, env: { KUBECONFIG: join(dir, 'missing') } }).config)).flag, 'KUBECONFIG');
  assert.match(flagError(() => connectionFor(parseArgs(['--kubeconfig', kubeconfig, '--context', 'nope'], none).config)).message, /nope/);
});

test.run();
