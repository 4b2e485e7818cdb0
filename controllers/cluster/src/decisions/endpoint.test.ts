// C-13 (changed): which control-plane endpoints are valid, and that every finding names its field.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { describeProblems, type EndpointProblem, validateControlPlaneEndpoint } from './endpoint.ts';

const test = suite('control-plane endpoint validation (C-13)');

const valid: [string, { host: string; port: number }][] = [
  ['IPv4', { host: '192.168.111.249', port: 6443 }],
  ['IPv6 (bare, as Cluster API joins host and port itself)', { host: 'fd00:1::249', port: 6443 }],
  ['DNS name', { host: 'api.cluster.example.com', port: 443 }],
  ['single label', { host: 'apiserver', port: 1 }],
  ['FQDN with trailing dot', { host: 'api.example.com.', port: 65535 }],
  ['underscore in a label', { host: 'api_int.example', port: 6443 }],
  ['port 0 means 6443 (W-2)', { host: '10.0.0.1', port: 0 }],
];
for (const [name, endpoint] of valid) {
  test(`valid: ${name}`, () => assert.equal(validateControlPlaneEndpoint(endpoint), []));
}

const invalid: [string, unknown, EndpointProblem['field'][], RegExp][] = [
  ['no endpoint', undefined, ['spec.controlPlaneEndpoint'], /^spec\.controlPlaneEndpoint: Required value/],
  ['empty host', { host: '', port: 6443 }, ['spec.controlPlaneEndpoint.host'], /^spec\.controlPlaneEndpoint\.host: Required value/],
  [
    'URL as host',
    { host: 'https://10.0.0.1', port: 6443 },
    ['spec.controlPlaneEndpoint.host'],
    /Invalid value: "https:\/\/10\.0\.0\.1": must be an IP address or a DNS name/,
  ],
  ['host with port', { host: '10.0.0.1:6443', port: 6443 }, ['spec.controlPlaneEndpoint.host'], /host: Invalid value/],
  ['bracketed IPv6', { host: '[fd00::1]', port: 6443 }, ['spec.controlPlaneEndpoint.host'], /host: Invalid value/],
  ['whitespace', { host: 'api example', port: 6443 }, ['spec.controlPlaneEndpoint.host'], /host: Invalid value/],
  ['IPv4 out of range', { host: '300.1.1.1', port: 6443 }, ['spec.controlPlaneEndpoint.host'], /host: Invalid value/],
  ['IPv4 with leading zeros', { host: '010.0.0.1', port: 6443 }, ['spec.controlPlaneEndpoint.host'], /host: Invalid value/],
  ["IPv6 with a zone (one machine's interface)", { host: 'fe80::1%eth0', port: 6443 }, ['spec.controlPlaneEndpoint.host'], /host: Invalid value/],
  ['label starting with a dash', { host: '-api.example', port: 6443 }, ['spec.controlPlaneEndpoint.host'], /host: Invalid value/],
  ['label longer than 63', { host: `${'a'.repeat(64)}.example`, port: 6443 }, ['spec.controlPlaneEndpoint.host'], /host: Invalid value/],
  [
    'negative port',
    { host: '10.0.0.1', port: -1 },
    ['spec.controlPlaneEndpoint.port'],
    /^spec\.controlPlaneEndpoint\.port: Invalid value: -1: must be between 1 and 65535/,
  ],
  ['port above 65535', { host: '10.0.0.1', port: 70000 }, ['spec.controlPlaneEndpoint.port'], /port: Invalid value: 70000/],
  [
    'both wrong: both named',
    { host: '', port: 99999 },
    ['spec.controlPlaneEndpoint.host', 'spec.controlPlaneEndpoint.port'],
    /host: Required value.*; spec\.controlPlaneEndpoint\.port: Invalid value/,
  ],
];
for (const [name, endpoint, fields, message] of invalid) {
  test(`invalid: ${name}`, () => {
    const problems = validateControlPlaneEndpoint(endpoint as never);
    assert.equal(problems.map((p) => p.field), fields);
    assert.match(describeProblems(problems), message);
  });
}

test.run();
