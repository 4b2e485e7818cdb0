import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { JsonMap } from './json.ts';
import { formatSeconds, parseDuration } from './duration.ts';
import { metal3Data, metal3DataClaim, metal3DataTemplate, metal3Remediation, metal3RemediationTemplate } from './index.ts';

const test = suite('conversion rules: Metal3DataTemplate, Metal3Data, Metal3DataClaim, Metal3Remediation(Template)');

const dtHub = (spec: JsonMap) => metal3DataTemplate.toHub({ spec: { clusterName: 'c', ...spec } })['spec'] as Record<string, unknown>;
const dtSpoke = (spec: JsonMap) => metal3DataTemplate.toSpoke({ spec: { clusterName: 'c', ...spec } })['spec'] as Record<string, unknown>;

test('AP-16/AP-17: templateReference is v1beta1-only; …FromIPPool ⇄ …FromPool; "" pool kind/apiGroup unset, defaults written back', () => {
  const hub = dtHub({
    templateReference: 't',
    metaData: { ipAddressesFromIPPool: [{ key: 'ip', name: 'p', kind: '', apiGroup: 'ipam.metal3.io' }], strings: [] },
  });
  assert.equal(hub, { clusterName: 'c', metaData: { ipAddressesFromPool: [{ key: 'ip', name: 'p', apiGroup: 'ipam.metal3.io' }] } });
  assert.equal(dtSpoke({ metaData: { dnsServersFromPool: [{ key: 'dns', name: 'p' }] } })['metaData'], {
    dnsServersFromIPPool: [{ key: 'dns', name: 'p', kind: 'IPPool', apiGroup: 'ipam.metal3.io' }],
  });
});

test('CV-11: status.indexes map ⇄ list sorted by index', () => {
  const hub = metal3DataTemplate.toHub({ spec: {}, status: { indexes: { b: 2, a: 0, c: 1 }, dataNames: { a: 'x-0' } } })['status'];
  assert.equal(hub, { indexes: [{ name: 'a', index: 0 }, { name: 'c', index: 1 }, { name: 'b', index: 2 }] }, 'our dataNames are v1beta1-only');
  assert.equal(metal3DataTemplate.toSpoke({ spec: {}, status: hub! })['status'], { indexes: { a: 0, c: 1, b: 2 } });
});

test('CV-12/CV-16/CV-17/AP-20: bond parameters map ⇄ list by name; "" MAC sources unset; vlanID 0 kept; link names', () => {
  const mac = { string: '', fromHostInterface: 'eth0' };
  const links = {
    bonds: [{ id: 'b0', bondMode: '802.3ad', macAddress: mac, parameters: { 'mii-monitor-interval': 100, 'lacp-rate': 'fast' } }],
    vlans: [{ id: 'v0', vlanID: 0, vlanLink: 'b0', macAddress: { string: '00:11:22:33:44:55' }, name: '' }],
  };
  const hub = dtHub({ networkData: { links } })['networkData'];
  assert.equal(hub, {
    links: {
      bonds: [{
        id: 'b0',
        bondMode: '802.3ad',
        macAddress: { fromHostInterface: 'eth0' },
        parameters: [{ name: 'lacp-rate', value: 'fast' }, { name: 'mii-monitor-interval', value: 100 }],
      }],
      vlans: [{ id: 'v0', vlanID: 0, vlanLink: 'b0', macAddress: { string: '00:11:22:33:44:55' } }],
    },
  });
  const back = dtSpoke({ networkData: hub as JsonMap })['networkData'] as { links: { bonds: { parameters: unknown }[] } };
  assert.equal(back.links.bonds[0]!.parameters, { 'lacp-rate': 'fast', 'mii-monitor-interval': 100 });
});

test('CV-13/CV-14/AP-23: pool refs ("" unset, defaults written back), ipv6 address pool required in v1beta1, route services {} unset, prefix 0 kept', () => {
  const route = { network: '10.0.0.0', prefix: 0, gateway: { string: '10.0.0.1', fromIPPool: '' }, services: {} };
  const networks = { ipv4: [{ id: 'n', link: 'eth0', fromPoolRef: { name: 'p', kind: 'IPPool', apiGroup: '' }, ipAddressFromIPPool: '', routes: [route] }] };
  const hub = dtHub({ networkData: { networks } })['networkData'];
  assert.equal(hub, {
    networks: {
      ipv4: [{
        id: 'n',
        link: 'eth0',
        fromPoolRef: { name: 'p', kind: 'IPPool' },
        routes: [{ network: '10.0.0.0', prefix: 0, gateway: { string: '10.0.0.1' } }],
      }],
    },
  });
  const back = dtSpoke({ networkData: { networks: { ipv6: [{ id: 'n6', link: 'eth0', fromPoolRef: { name: 'p6' } }] } } })['networkData'];
  assert.equal(back, {
    networks: { ipv6: [{ id: 'n6', link: 'eth0', ipAddressFromIPPool: '', fromPoolRef: { name: 'p6', kind: 'IPPool', apiGroup: 'ipam.metal3.io' } }] },
  });
});

test('CV-15/CV-21/AP-19: index offset 0 kept, "" prefix unset; fromBootMAC false stays explicit; "" interface unset', () => {
  const meta = { indexes: [{ key: 'i', offset: 0, step: 1, prefix: '' }], fromHostInterfaces: [{ key: 'mac', interface: '', fromBootMAC: false }] };
  assert.equal(dtHub({ metaData: meta })['metaData'], {
    indexes: [{ key: 'i', offset: 0, step: 1 }],
    fromHostInterfaces: [{ key: 'mac', fromBootMAC: false }],
  });
});

test('CV-18: Metal3Data index 0 kept, refs → name/namespace only, unset refs read back as {}, "" errorMessage unset', () => {
  const spec = { index: 0, claim: { kind: 'Metal3DataClaim', name: 'c', namespace: 'n', uid: 'u' }, template: { name: '' }, templateReference: 'x' };
  assert.equal(metal3Data.toHub({ spec, status: { ready: false, errorMessage: '' } }), {
    spec: { index: 0, claim: { name: 'c', namespace: 'n' } },
    status: { ready: false },
  });
  assert.equal(metal3Data.toSpoke({ spec: { index: 3 } })['spec'], { index: 3, claim: {}, template: {} });
});

test('CV-19: Metal3DataClaim template and renderedData refs, errorMessage', () => {
  const claim = { spec: { template: { name: 't', kind: 'Metal3DataTemplate' } }, status: { renderedData: { name: 'd', uid: 'u' }, errorMessage: '' } };
  assert.equal(metal3DataClaim.toHub(claim), { spec: { template: { name: 't' } }, status: { renderedData: { name: 'd' } } });
  assert.equal(metal3DataClaim.toSpoke({ spec: {} })['spec'], { template: {} });
});

test('CV-20: Go durations ⇄ whole seconds (fractions truncated), written back as Go prints them', () => {
  const parsed: [string, number | undefined][] = [
    ['10m', 600],
    ['600s', 600],
    ['1h2m3.5s', 3723.5],
    ['150000ms', 150],
    ['1.5h', 5400],
    ['0', 0],
    ['-1m', -60],
    ['5', undefined],
    ['', undefined],
    ['1d', undefined],
  ];
  for (const [text, want] of parsed) assert.is(parseDuration(text), want, text);
  const printed: [number, string][] = [[600, '10m0s'], [3723, '1h2m3s'], [45, '45s'], [3600, '1h0m0s'], [0, '0s']];
  for (const [seconds, want] of printed) assert.is(formatSeconds(seconds), want, String(seconds));
  const strategy = (s: JsonMap) => (metal3Remediation.toHub({ spec: { strategy: s } })['spec'] as { strategy: unknown }).strategy;
  assert.equal(strategy({ type: 'Reboot', retryLimit: 2, timeout: '1h2m3.5s' }), { type: 'Reboot', retryLimit: 2, timeoutSeconds: 3723 });
  assert.equal(strategy({ type: 'Reboot', timeout: 'soon' }), { type: 'Reboot' }, 'no duration: unset (the annotation keeps it)');
  assert.equal(metal3Remediation.toSpoke({ spec: { strategy: { timeoutSeconds: 600 } } })['spec'], { strategy: { timeout: '10m0s' } });
});

test('AP-29/AP-30: remediation phase outside the v1beta2 enum and retryCount 0 are unset; template status.status required in v1beta1', () => {
  assert.equal(metal3Remediation.toHub({ spec: {}, status: { phase: 'Odd', retryCount: 0 } })['status'], {});
  assert.equal(metal3Remediation.toHub({ spec: {}, status: { phase: 'Deleting machine', retryCount: 1 } })['status'], {
    phase: 'Deleting machine',
    retryCount: 1,
  });
  assert.equal(metal3RemediationTemplate.toSpoke({ spec: {}, status: {} })['status'], { status: {} });
});

test.run();
