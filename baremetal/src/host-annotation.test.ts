// M-40 (changed, E-29): the host annotation as both the machine and the data controller read it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { hostAnnotationKey, hostAnnotationProblem, parseHostAnnotation } from './host-annotation.ts';

const test = suite('host annotation');
const NS = 'tenant-a';

test('M-40: parsing <namespace>/<name>, a bare name, nothing, and more than one /', () => {
  const rows: [string | undefined, ReturnType<typeof parseHostAnnotation>][] = [
    [undefined, undefined],
    ['', undefined],
    ['h0', { namespace: '', name: 'h0' }],
    [`${NS}/h0`, { namespace: NS, name: 'h0' }],
    ['tenant-b/h0', { namespace: 'tenant-b', name: 'h0' }],
    ['/h0', { namespace: '', name: 'h0' }],
    [`${NS}/`, { namespace: NS, name: '' }],
    ['a/b/c', 'invalid'],
  ];
  for (const [value, expected] of rows) assert.equal(parseHostAnnotation(value), expected, String(value));
});

test('M-40 (changed), E-29: the host is always in the machine namespace; another namespace names no host', () => {
  const rows: [string | undefined, { namespace: string; name: string } | undefined][] = [
    [undefined, undefined],
    ['h0', { namespace: NS, name: 'h0' }],
    [`${NS}/h0`, { namespace: NS, name: 'h0' }],
    ['/h0', { namespace: NS, name: 'h0' }],
    ['tenant-b/h0', undefined],
    [`${NS}/`, undefined],
    ['a/b/c', undefined],
  ];
  for (const [value, expected] of rows) assert.equal(hostAnnotationKey(value, NS), expected, String(value));
});

test('M-40 (changed): the problem names the annotation, its value and the namespace allowed', () => {
  for (const fine of [undefined, '', 'h0', `${NS}/h0`, '/h0']) assert.is(hostAnnotationProblem(fine, NS), undefined, String(fine));
  assert.is(
    hostAnnotationProblem('tenant-b/h0', NS),
    'annotation metal3.io/BareMetalHost names BareMetalHost "tenant-b/h0" in another namespace; a Metal3Machine can only use hosts of its own namespace "tenant-a"',
  );
  assert.is(hostAnnotationProblem('a/b/c', NS), 'annotation metal3.io/BareMetalHost must be <namespace>/<name>, got "a/b/c"');
});

test.run();
