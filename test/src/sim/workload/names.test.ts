// Names of workload apiservers and the simulator's annotation values.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isProviderIdMode, workloadClusterName } from './names.ts';

const test = suite('workload simulator names');
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

test('apiserver names are short DNS labels that keep namespace and name readable', () => {
  const cases: [{ namespace: string; name: string; uid?: string }, RegExp][] = [
    [{ namespace: 'metal3', name: 'test1', uid: 'u' }, /^metal3-test1-[0-9a-f]{8}$/],
    [{ namespace: 'sim-workload-1a2b3c4d', name: 'Cluster.With_Dots', uid: 'u' }, /^sim-workload-1-cluster-with-dot-[0-9a-f]{8}$/],
    [{ namespace: '---', name: '___' }, /^wl-[0-9a-f]{8}$/],
    [{ namespace: 'n'.repeat(63), name: 'c'.repeat(63), uid: 'u' }, /^n{14}-c{16}-[0-9a-f]{8}$/],
  ];
  for (const [cluster, pattern] of cases) {
    const name = workloadClusterName(cluster);
    assert.ok(DNS_LABEL.test(name) && name.length <= 40, name);
    assert.match(name, pattern);
  }
});

test('the name is stable for one Cluster and differs across namespace, name and uid', () => {
  const base = { namespace: 'ns', name: 'c', uid: 'u-1' };
  assert.is(workloadClusterName(base), workloadClusterName({ ...base }));
  const names = new Set(
    [base, { ...base, uid: 'u-2' }, { ...base, namespace: 'ns2' }, { ...base, name: 'c2' }, { namespace: 'ns-c', name: '', uid: 'u-1' }].map(
      workloadClusterName,
    ),
  );
  assert.is(names.size, 5);
});

test('provider-id modes', () => {
  for (const mode of ['default', 'cloud-provider', 'legacy']) assert.ok(isProviderIdMode(mode), mode);
  for (const mode of ['', 'Legacy', 'cloud']) assert.not.ok(isProviderIdMode(mode), mode);
});

test.run();
