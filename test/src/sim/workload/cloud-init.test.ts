// cloud-init's view of a provisioned host: BMO's meta_data, the hostname, Jinja rendering.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CloudInitDataError, cloudInitHostname, hostMetaData, parseMetaDataSecret, renderJinja } from './cloud-init.ts';

const test = suite('cloud-init: meta_data, hostname and Jinja');
const host = { namespace: 'metal3', name: 'node-0', uid: '4d25a2c2-46e4-11ec-81d3-0242ac130003' };

test('BMO default meta_data names the host; a Secret key wins over a default', () => {
  assert.equal(hostMetaData(host), {
    uuid: host.uid,
    'metal3-namespace': 'metal3',
    'metal3-name': 'node-0',
    'local-hostname': 'node-0',
    local_hostname: 'node-0',
    name: 'node-0',
  });
  const md = hostMetaData(host, { name: 'machine-a', providerid: 'metal3/node-0/m3m-a' });
  assert.is(md['name'], 'machine-a');
  assert.is(md['providerid'], 'metal3/node-0/m3m-a');
  assert.is(md['uuid'], host.uid);
});

test('metaData Secret values: a YAML mapping of scalars, as CAPM3 renders it', () => {
  const cases: [string, Record<string, string>][] = [
    ['', {}],
    ['  \n', {}],
    ['local-hostname: worker-1\nproviderid: metal3/node-0/m3m\n', { 'local-hostname': 'worker-1', providerid: 'metal3/node-0/m3m' }],
    ['index: 3\nenabled: true\nmac: "00:11:22:33:44:55"\n', { index: '3', enabled: 'true', mac: '00:11:22:33:44:55' }],
    ['empty:\n', {}],
  ];
  for (const [text, want] of cases) assert.equal(parseMetaDataSecret(text), want, text);
});

test('metaData that is not a YAML mapping is an error', () => {
  for (const text of ['- a\n- b\n', 'just a string', 'a: [unclosed']) {
    assert.throws(() => parseMetaDataSecret(text), (e: unknown) => e instanceof CloudInitDataError, text);
  }
});

test("hostname: the Secret's local-hostname, else local_hostname, else the host name; lower-cased", () => {
  const cases: [Record<string, string>, string][] = [
    [{}, 'node-0'],
    [{ 'local-hostname': 'cp-1' }, 'cp-1'],
    [{ local_hostname: 'cp-2' }, 'cp-2'],
    [{ 'local-hostname': 'cp-1', local_hostname: 'cp-2' }, 'cp-1'],
    [{ 'local-hostname': '' }, 'node-0'],
    [{ 'local-hostname': ' Worker-A ' }, 'worker-a'],
    [{ name: 'not-the-hostname' }, 'node-0'],
  ];
  for (const [secret, want] of cases) assert.is(cloudInitHostname(host, secret), want, JSON.stringify(secret));
});

test('Jinja expressions render from meta_data; unknown variables as cloud-init renders them', () => {
  const md = hostMetaData(host, { providerid: 'metal3/node-0/m3m' });
  const cases: [string, string][] = [
    ['metal3.io/uuid={{ ds.meta_data.uuid }}', `metal3.io/uuid=${host.uid}`],
    ['metal3.io/uuid={{ds.meta_data.uuid}}', `metal3.io/uuid=${host.uid}`],
    ["name: '{{ ds.meta_data.name }}'", "name: 'node-0'"],
    ["{{ ds.meta_data['local-hostname'] }}", 'node-0'],
    ['{{ ds.meta_data["metal3-namespace"] }}', 'metal3'],
    ['{{ v1.local_hostname }} {{ v1.instance_id }}', `node-0 ${host.uid}`],
    ['--provider-id=metal3://{{ ds.meta_data.providerid }}', '--provider-id=metal3://metal3/node-0/m3m'],
    ['{{ ds.meta_data.nope }}', 'CI_MISSING_JINJA_VAR/nope'],
    ['{% if x %}kept{% endif %}', '{% if x %}kept{% endif %}'],
    ['no template', 'no template'],
  ];
  for (const [text, want] of cases) assert.is(renderJinja(text, md), want, text);
});

test.run();
