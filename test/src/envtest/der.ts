// A minimal ASN.1 DER encoder: just the types an X.509 v3 certificate needs. node:crypto can make and
// use keys but cannot write certificates, and the test environment must not depend on an openssl
// binary or a certificate library, so pki.ts assembles certificates from these pieces.

/** Encodes a definite length: short form below 128, long form (0x80 | byte count, then bytes) above. */
function encodeLength(length: number): Uint8Array {
  if (length < 0x80) return Uint8Array.of(length);
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n & 0xff);
  return Uint8Array.of(0x80 | bytes.length, ...bytes);
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, p) => sum + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** One tag-length-value element; `content` may be several already-encoded elements. */
export function tlv(tag: number, ...content: Uint8Array[]): Uint8Array {
  const body = concat(content);
  return concat([Uint8Array.of(tag), encodeLength(body.length), body]);
}

export const sequence = (...items: Uint8Array[]): Uint8Array => tlv(0x30, ...items);
export const set = (...items: Uint8Array[]): Uint8Array => tlv(0x31, ...items);
export const octetString = (bytes: Uint8Array): Uint8Array => tlv(0x04, bytes);
export const utf8String = (text: string): Uint8Array => tlv(0x0c, new TextEncoder().encode(text));
export const ia5String = (text: string): Uint8Array => tlv(0x16, new TextEncoder().encode(text));
export const boolean = (value: boolean): Uint8Array => tlv(0x01, Uint8Array.of(value ? 0xff : 0x00));
/** [n] EXPLICIT: a constructed context-specific wrapper around complete elements. */
export const explicit = (n: number, ...items: Uint8Array[]): Uint8Array => tlv(0xa0 | n, ...items);
/** [n] IMPLICIT primitive: the context tag replaces the universal one (e.g. GeneralName choices). */
export const implicitPrimitive = (n: number, bytes: Uint8Array): Uint8Array => tlv(0x80 | n, bytes);

/** A non-negative INTEGER from big-endian magnitude bytes (a 0x00 is prepended when the top bit is set). */
export function unsignedInteger(magnitude: Uint8Array): Uint8Array {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++;
  const trimmed = magnitude.subarray(start);
  const needsPad = ((trimmed[0] ?? 0) & 0x80) !== 0;
  return tlv(0x02, needsPad ? concat([Uint8Array.of(0), trimmed]) : trimmed);
}

export const smallInteger = (n: number): Uint8Array => unsignedInteger(Uint8Array.of(n));

/** OBJECT IDENTIFIER from dotted form: first two arcs packed as 40*a+b, then base-128 with continuation bits. */
export function oid(dotted: string): Uint8Array {
  const arcs = dotted.split('.').map(Number);
  const [a = 0, b = 0, ...rest] = arcs;
  const bytes: number[] = [];
  for (const arc of [40 * a + b, ...rest]) {
    const chunk: number[] = [arc & 0x7f];
    for (let n = Math.floor(arc / 128); n > 0; n = Math.floor(n / 128)) chunk.unshift((n & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tlv(0x06, Uint8Array.from(bytes));
}

/** BIT STRING holding whole bytes (no unused bits), e.g. a public key or signature. */
export const bitStringBytes = (bytes: Uint8Array): Uint8Array => tlv(0x03, Uint8Array.of(0), bytes);

/**
 * BIT STRING of named bits (bit 0 is the most significant bit of the first byte), as KeyUsage uses.
 * DER requires trailing zero bits to be dropped, so the unused-bits count is computed from the last set bit.
 */
export function namedBits(bits: readonly number[]): Uint8Array {
  if (bits.length === 0) return tlv(0x03, Uint8Array.of(0));
  const highest = Math.max(...bits);
  const bytes = new Uint8Array(Math.floor(highest / 8) + 1);
  for (const bit of bits) bytes[Math.floor(bit / 8)]! |= 0x80 >> bit % 8;
  const unused = 7 - (highest % 8);
  return tlv(0x03, Uint8Array.of(unused), bytes);
}

/** UTCTime (YYMMDDHHMMSSZ) up to 2049, GeneralizedTime after, as RFC 5280 prescribes. */
export function time(date: Date): Uint8Array {
  const iso = date.toISOString(); // 2026-11-22T10:42:28.123Z
  const digits = iso.slice(0, 19).replace(/[-T:]/g, ''); // 20261122104228
  const year = date.getUTCFullYear();
  return year < 2050 ? tlv(0x17, new TextEncoder().encode(`${digits.slice(2)}Z`)) : tlv(0x18, new TextEncoder().encode(`${digits}Z`));
}
