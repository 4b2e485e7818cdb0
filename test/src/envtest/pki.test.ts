// The hand-written DER encoder and certificates, checked against node:crypto's X.509 parser (no
// apiserver needed; envtest.test.ts proves Go's TLS accepts them).
import { X509Certificate } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { namedBits, oid, time, unsignedInteger } from './der.ts';
import { clientCertificate, newAuthorities, servingCertificate, tokenFile, verifySignedBy } from './pki.ts';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

test('DER primitives match known encodings', () => {
  assert.is(hex(oid('1.2.840.10045.4.3.2')), '06082a8648ce3d040302'); // ecdsa-with-SHA256
  assert.is(hex(oid('2.5.29.17')), '0603551d11');
  assert.is(hex(unsignedInteger(Uint8Array.of(0x80))), '02020080'); // sign bit needs a pad byte
  assert.is(hex(unsignedInteger(Uint8Array.of(0, 0, 5))), '020105'); // leading zeros dropped
  assert.is(hex(namedBits([0, 5, 6])), '03020186'); // KeyUsage for a CA: 1 unused bit
  assert.is(hex(namedBits([0])), '03020780');
  assert.is(Buffer.from(time(new Date('2026-11-22T10:42:28Z'))).toString('latin1').slice(2), '261122104228Z');
  assert.is(Buffer.from(time(new Date('2051-01-02T03:04:05Z'))).toString('latin1').slice(2), '20510102030405Z');
});

test('serving and client certificates parse, chain to their CA and carry the identity', () => {
  const authorities = newAuthorities();
  const serving = servingCertificate(authorities);
  const parsed = new X509Certificate(serving.certPem);
  assert.ok(verifySignedBy(serving, authorities.servingCa));
  assert.is(parsed.checkIP('127.0.0.1'), '127.0.0.1');
  assert.is(parsed.checkHost('localhost'), 'localhost');
  assert.ok(!parsed.ca);
  assert.ok(new X509Certificate(authorities.servingCa.certPem).ca);

  const client = clientCertificate(authorities, 'alice', ['team-a', 'team-b']);
  const c = new X509Certificate(client.certPem);
  assert.ok(verifySignedBy(client, authorities.clientCa));
  assert.ok(!verifySignedBy(client, authorities.servingCa));
  assert.is(c.subject, 'O=team-a\nO=team-b\nCN=alice');
  assert.equal(c.keyUsage, ['1.3.6.1.5.5.7.3.2']);
});

test('token file lines quote the group list', () => {
  assert.is(tokenFile([{ token: 't', user: 'u', uid: 'id', groups: ['a', 'b'] }]), 't,u,id,"a,b"\n');
});

test.run();
