// SPDY/3.1 framing, the wire format of the kubelet's port-forward endpoint (what kube-apiserver
// speaks to a kubelet for `pods/portforward`, upgrade protocol `SPDY/3.1`). Pure: bytes in, frames
// out, and back. Header blocks are handled in headers.ts; here they stay opaque bytes.
//
// Only what a port-forward session uses is modelled: SYN_STREAM, SYN_REPLY, RST_STREAM, PING,
// GOAWAY, data frames; SETTINGS, HEADERS and WINDOW_UPDATE are parsed as `other` (the Go
// implementation Kubernetes uses does no flow control, so neither do we).

export const SPDY_VERSION = 3;
export const FLAG_FIN = 0x01;
const CONTROL_BIT = 0x80;
/** Control frame types (SPDY/3 draft, section 2.6). */
export const TYPE = { synStream: 1, synReply: 2, rstStream: 3, settings: 4, ping: 6, goAway: 7, headers: 8, windowUpdate: 9 } as const;
/** RST_STREAM status codes used here. */
export const RST = { protocolError: 1, invalidStream: 2, refusedStream: 3, cancel: 5, internalError: 6 } as const;
/** A data frame's payload is at most 2^24 - 1 bytes. */
export const MAX_DATA_LENGTH = 0xffffff;

export type Frame =
  | { readonly kind: 'data'; readonly streamId: number; readonly fin: boolean; readonly data: Uint8Array }
  | { readonly kind: 'synStream'; readonly streamId: number; readonly fin: boolean; readonly headerBlock: Uint8Array }
  | { readonly kind: 'synReply'; readonly streamId: number; readonly fin: boolean; readonly headerBlock: Uint8Array }
  | { readonly kind: 'rstStream'; readonly streamId: number; readonly status: number }
  | { readonly kind: 'ping'; readonly id: number }
  | { readonly kind: 'goAway'; readonly lastGoodStreamId: number; readonly status: number }
  | { readonly kind: 'other'; readonly type: number; readonly flags: number; readonly payload: Uint8Array };

export class SpdyProtocolError extends Error {
  override readonly name = 'SpdyProtocolError';
}

const u32 = (b: Uint8Array, at: number): number => ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;

/** Splits `buffer` into whole frames; `rest` is the incomplete tail to prepend to the next read. */
export function parseFrames(buffer: Uint8Array): { frames: Frame[]; rest: Uint8Array } {
  const frames: Frame[] = [];
  let at = 0;
  while (buffer.length - at >= 8) {
    const length = u32(buffer, at + 4) & 0xffffff;
    if (buffer.length - at < 8 + length) break;
    frames.push(parseFrame(buffer.subarray(at, at + 8 + length)));
    at += 8 + length;
  }
  return { frames, rest: buffer.subarray(at) };
}

function parseFrame(frame: Uint8Array): Frame {
  const flags = frame[4]!;
  const payload = frame.subarray(8);
  const fin = (flags & FLAG_FIN) !== 0;
  if ((frame[0]! & CONTROL_BIT) === 0) return { kind: 'data', streamId: u32(frame, 0) & 0x7fffffff, fin, data: payload };
  const version = ((frame[0]! & 0x7f) << 8) | frame[1]!;
  if (version !== SPDY_VERSION) throw new SpdyProtocolError(`unsupported SPDY version ${version}`);
  const type = (frame[2]! << 8) | frame[3]!;
  const need = (n: number) => {
    if (payload.length < n) throw new SpdyProtocolError(`control frame type ${type} too short (${payload.length} bytes)`);
  };
  switch (type) {
    case TYPE.synStream:
      need(10);
      return { kind: 'synStream', streamId: u32(payload, 0) & 0x7fffffff, fin, headerBlock: payload.subarray(10) };
    case TYPE.synReply:
      need(4);
      return { kind: 'synReply', streamId: u32(payload, 0) & 0x7fffffff, fin, headerBlock: payload.subarray(4) };
    case TYPE.rstStream:
      need(8);
      return { kind: 'rstStream', streamId: u32(payload, 0) & 0x7fffffff, status: u32(payload, 4) };
    case TYPE.ping:
      need(4);
      return { kind: 'ping', id: u32(payload, 0) };
    case TYPE.goAway:
      need(8);
      return { kind: 'goAway', lastGoodStreamId: u32(payload, 0) & 0x7fffffff, status: u32(payload, 4) };
    default:
      return { kind: 'other', type, flags, payload };
  }
}

function header(control: boolean, first: number, flags: number, length: number): Uint8Array {
  if (length > MAX_DATA_LENGTH) throw new SpdyProtocolError(`frame payload of ${length} bytes exceeds 2^24 - 1`);
  const out = new Uint8Array(8);
  const view = new DataView(out.buffer);
  view.setUint32(0, control ? (0x80000000 | first) >>> 0 : first & 0x7fffffff);
  view.setUint32(4, ((flags << 24) | length) >>> 0);
  return out;
}

/** The parts, one after the other, in one array. */
export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function words(...values: number[]): Uint8Array {
  const out = new Uint8Array(values.length * 4);
  values.forEach((v, i) => new DataView(out.buffer).setUint32(i * 4, v >>> 0));
  return out;
}

const control = (type: number, flags: number, payload: Uint8Array): Uint8Array =>
  concat(header(true, (SPDY_VERSION << 16) | type, flags, payload.length), payload);

/** The bytes of one frame. */
export function encodeFrame(frame: Frame): Uint8Array {
  switch (frame.kind) {
    case 'data':
      return concat(header(false, frame.streamId, frame.fin ? FLAG_FIN : 0, frame.data.length), frame.data);
    case 'synStream':
      // Associated stream 0, priority 0, slot 0.
      return control(TYPE.synStream, frame.fin ? FLAG_FIN : 0, concat(words(frame.streamId, 0), new Uint8Array(2), frame.headerBlock));
    case 'synReply':
      return control(TYPE.synReply, frame.fin ? FLAG_FIN : 0, concat(words(frame.streamId), frame.headerBlock));
    case 'rstStream':
      return control(TYPE.rstStream, 0, words(frame.streamId, frame.status));
    case 'ping':
      return control(TYPE.ping, 0, words(frame.id));
    case 'goAway':
      return control(TYPE.goAway, 0, words(frame.lastGoodStreamId, frame.status));
    case 'other':
      return control(frame.type, frame.flags, frame.payload);
  }
}

/** Data frames for `data`, split at the 2^24 - 1 limit; `fin` goes on the last (an empty one when data is empty). */
export function dataFrames(streamId: number, data: Uint8Array, fin: boolean): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at < data.length || out.length === 0; at += MAX_DATA_LENGTH) {
    const chunk = data.subarray(at, at + MAX_DATA_LENGTH);
    out.push(encodeFrame({ kind: 'data', streamId, fin: fin && at + MAX_DATA_LENGTH >= data.length, data: chunk }));
  }
  return out;
}
