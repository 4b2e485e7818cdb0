// Certificates, keys and tokens made by the launcher, never by the apiserver, so their authority is
// known before the process starts and can be shared by every apiserver of one environment:
// - a serving CA (one leaf per apiserver for 127.0.0.1/localhost), handed to clients as caData;
// - a client CA (--client-ca-file) that signs certificates for any user name (CN) and groups (O),
//   which is how tests mint least-privilege identities without restarting the apiserver;
// - a service-account signing key, so TokenRequest works;
// - random bearer tokens for the static admin user (--token-auth-file).
// All keys are ECDSA P-256: node:crypto makes them, Go's TLS and x509 accept them.
import { createHash, createPublicKey, generateKeyPairSync, type KeyObject, randomBytes, sign, X509Certificate } from 'node:crypto';
import {
  bitStringBytes,
  boolean,
  explicit,
  implicitPrimitive,
  namedBits,
  octetString,
  oid,
  sequence,
  set,
  smallInteger,
  time,
  unsignedInteger,
  utf8String,
} from './der.ts';

const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

// KeyUsage bit numbers (RFC 5280 4.2.1.3).
const DIGITAL_SIGNATURE = 0;
const KEY_CERT_SIGN = 5;
const CRL_SIGN = 6;

export interface KeyPair {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  /** PKCS#8 "PRIVATE KEY" PEM. */
  readonly keyPem: string;
  /** SPKI "PUBLIC KEY" PEM. */
  readonly publicKeyPem: string;
}

export interface Certificate extends KeyPair {
  readonly certPem: string;
  /** The DER Name of the subject, reused as the issuer of certificates this one signs. */
  readonly subject: Uint8Array;
  readonly keyId: Uint8Array;
}

export interface CertificateRequest {
  readonly commonName: string;
  readonly organizations?: readonly string[];
  readonly dnsNames?: readonly string[];
  readonly ipAddresses?: readonly string[];
  /** `peer`: server and client authentication both (an etcd member's certificate, as kubeadm issues it). */
  readonly usage: 'ca' | 'server' | 'client' | 'peer';
  /** Validity from one hour ago (clock skew) to this many days ahead. */
  readonly days?: number;
}

export function newKeyPair(): KeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return {
    privateKey,
    publicKey,
    keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

function name(commonName: string, organizations: readonly string[] = []): Uint8Array {
  // One RDN per attribute; Go reads every O attribute as a group, in order.
  const rdns = organizations.map((o) => set(sequence(oid(OID.organization), utf8String(o))));
  return sequence(...rdns, set(sequence(oid(OID.commonName), utf8String(commonName))));
}

function extension(id: string, critical: boolean, value: Uint8Array): Uint8Array {
  return critical ? sequence(oid(id), boolean(true), octetString(value)) : sequence(oid(id), octetString(value));
}

function ipBytes(ip: string): Uint8Array {
  const parts = ip.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) {
    throw new Error(`only IPv4 addresses are supported in certificates, got ${ip}`);
  }
  return Uint8Array.from(parts);
}

function pem(label: string, der: Uint8Array): string {
  const b64 = Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n').replace(/\n$/, '');
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}

/** Creates a certificate for a fresh key, signed by `issuer` or self-signed when issuer is absent. */
export function issueCertificate(request: CertificateRequest, issuer?: Certificate): Certificate {
  const keys = newKeyPair();
  const spki = new Uint8Array(keys.publicKey.export({ type: 'spki', format: 'der' }));
  const keyId = new Uint8Array(createHash('sha1').update(spki).digest());
  const subject = name(request.commonName, request.organizations);
  const now = Date.now();
  const serial = randomBytes(16);
  serial[0]! &= 0x7f; // positive, at most 20 octets

  const extensions: Uint8Array[] = [];
  const isCa = request.usage === 'ca';
  extensions.push(extension(OID.basicConstraints, true, isCa ? sequence(boolean(true)) : sequence()));
  extensions.push(
    extension(OID.keyUsage, true, namedBits(isCa ? [DIGITAL_SIGNATURE, KEY_CERT_SIGN, CRL_SIGN] : [DIGITAL_SIGNATURE])),
  );
  if (!isCa) {
    const purposes = { server: [OID.serverAuth], client: [OID.clientAuth], peer: [OID.serverAuth, OID.clientAuth] }[request.usage];
    extensions.push(extension(OID.extKeyUsage, false, sequence(...purposes.map((p) => oid(p)))));
  }
  extensions.push(extension(OID.subjectKeyIdentifier, false, octetString(keyId)));
  if (issuer) {
    extensions.push(extension(OID.authorityKeyIdentifier, false, sequence(implicitPrimitive(0, issuer.keyId))));
  }
  const altNames = [
    ...(request.dnsNames ?? []).map((d) => implicitPrimitive(2, new TextEncoder().encode(d))),
    ...(request.ipAddresses ?? []).map((ip) => implicitPrimitive(7, ipBytes(ip))),
  ];
  if (altNames.length > 0) extensions.push(extension(OID.subjectAltName, false, sequence(...altNames)));

  const algorithm = sequence(oid(OID.ecdsaWithSha256));
  const tbs = sequence(
    explicit(0, smallInteger(2)), // v3
    unsignedInteger(serial),
    algorithm,
    issuer?.subject ?? subject,
    sequence(time(new Date(now - 3600_000)), time(new Date(now + (request.days ?? 30) * 86400_000))),
    subject,
    spki,
    explicit(3, sequence(...extensions)),
  );
  // node:crypto signs ECDSA as a DER Ecdsa-Sig-Value by default, which is what X.509 wants.
  const signature = sign('sha256', tbs, issuer?.privateKey ?? keys.privateKey);
  const certPem = pem('CERTIFICATE', sequence(tbs, algorithm, bitStringBytes(new Uint8Array(signature))));
  return { ...keys, certPem, subject, keyId };
}

/** Checks a certificate's signature with node:crypto's own parser: a cheap guard against encoder bugs. */
export function verifySignedBy(cert: Certificate, issuer: Certificate): boolean {
  return new X509Certificate(cert.certPem).verify(createPublicKey(issuer.publicKeyPem));
}

/** 32 random bytes, hex: the static-token and bootstrap format the apiserver accepts. */
export function newToken(): string {
  return randomBytes(32).toString('hex');
}

export interface StaticTokenUser {
  readonly token: string;
  readonly user: string;
  readonly uid: string;
  readonly groups: readonly string[];
}

/** --token-auth-file CSV: token,user,uid,"group1,group2" (the groups column is quoted and comma-split). */
export function tokenFile(users: readonly StaticTokenUser[]): string {
  return users.map((u) => `${u.token},${u.user},${u.uid},"${u.groups.join(',')}"`).join('\n') + '\n';
}

/** The authorities shared by all apiservers of one environment. */
export interface Authorities {
  readonly servingCa: Certificate;
  readonly clientCa: Certificate;
  /** Signs and verifies service-account tokens (--service-account-signing-key-file / --service-account-key-file). */
  readonly serviceAccountKey: KeyPair;
}

export function newAuthorities(): Authorities {
  return {
    servingCa: issueCertificate({ commonName: 'metal3-ts-envtest-serving-ca', organizations: ['metal3-ts'], usage: 'ca', days: 365 }),
    clientCa: issueCertificate({ commonName: 'metal3-ts-envtest-client-ca', organizations: ['metal3-ts'], usage: 'ca', days: 365 }),
    serviceAccountKey: newKeyPair(),
  };
}

/** A serving certificate for an apiserver reachable only on loopback. */
export function servingCertificate(authorities: Authorities): Certificate {
  return issueCertificate(
    {
      commonName: 'kube-apiserver',
      dnsNames: ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc'],
      ipAddresses: ['127.0.0.1', '10.0.0.1'],
      usage: 'server',
      days: 365,
    },
    authorities.servingCa,
  );
}

/** A client certificate: the apiserver authenticates it as user=CN, groups=O. Valid `days` (default 30). */
export function clientCertificate(authorities: Authorities, user: string, groups: readonly string[] = [], days = 30): Certificate {
  return issueCertificate({ commonName: user, organizations: groups, usage: 'client', days }, authorities.clientCa);
}
