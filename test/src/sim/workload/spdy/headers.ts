// SPDY/3 header blocks: a count, then length-prefixed lower-case names and values (several values of
// one name joined by NUL), compressed as ONE zlib stream per connection and direction, primed with
// the SPDY dictionary and flushed at the end of each frame's block.
//
// Writing needs no deflate: a zlib stream of "stored" (uncompressed) blocks is valid, so the
// compressor is a pure function of its position (zlib header on the first block only). Reading
// must inflate what a real peer compressed: node:zlib inflates everything received so far with a
// sync flush and the new output is this frame's block (header streams are a few hundred bytes per
// connection, so re-inflating is cheaper than keeping an asynchronous zlib stream in step).
import { constants, inflateSync } from 'node:zlib';
import { SPDY3_DICTIONARY } from './dictionary.ts';
import { concat, SpdyProtocolError } from './frames.ts';

export type HeaderBlock = ReadonlyMap<string, readonly string[]>;

/** The uncompressed name/value block. Names are lower-cased, as SPDY requires. */
export function encodeHeaderBlock(headers: Readonly<Record<string, string | readonly string[]>>): Uint8Array {
  const encoder = new TextEncoder();
  const entries = Object.entries(headers).map(([name, value]) =>
    [
      encoder.encode(name.toLowerCase()),
      encoder.encode(typeof value === 'string' ? value : value.join('\0')),
    ] as const
  );
  const size = 4 + entries.reduce((n, [name, value]) => n + 8 + name.length + value.length, 0);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint32(0, entries.length);
  let at = 4;
  for (const [name, value] of entries) {
    view.setUint32(at, name.length);
    out.set(name, at + 4);
    at += 4 + name.length;
    view.setUint32(at, value.length);
    out.set(value, at + 4);
    at += 4 + value.length;
  }
  return out;
}

export function decodeHeaderBlock(block: Uint8Array): HeaderBlock {
  const decoder = new TextDecoder();
  const view = new DataView(block.buffer, block.byteOffset, block.byteLength);
  const read = (at: number): [string, number] => {
    if (at + 4 > block.length) throw new SpdyProtocolError('header block truncated');
    const length = view.getUint32(at);
    if (at + 4 + length > block.length) throw new SpdyProtocolError('header block truncated');
    return [decoder.decode(block.subarray(at + 4, at + 4 + length)), at + 4 + length];
  };
  if (block.length < 4) throw new SpdyProtocolError('header block truncated');
  const count = view.getUint32(0);
  const out = new Map<string, string[]>();
  let at = 4;
  for (let i = 0; i < count; i++) {
    const [name, next] = read(at);
    const [value, after] = read(next);
    at = after;
    out.set(name, [...(out.get(name) ?? []), ...value.split('\0')]);
  }
  return out;
}

/** zlib header: deflate with a 32 KiB window, FDICT set, check bits making it a multiple of 31; then the dictionary id. */
const ZLIB_HEADER = Uint8Array.from([0x78, 0x20, 0xe3, 0xc6, 0xa7, 0xc2]);
/** What a sync flush ends with: an empty stored block. */
const SYNC_MARKER = Uint8Array.from([0x00, 0x00, 0x00, 0xff, 0xff]);
const STORED_MAX = 0xffff;

/** One direction's header compressor: each call is the next block of the connection's zlib stream. */
export class HeaderCompressor {
  #started = false;

  compress(block: Uint8Array): Uint8Array {
    const parts: Uint8Array[] = this.#started ? [] : [ZLIB_HEADER];
    this.#started = true;
    for (let at = 0; at < block.length; at += STORED_MAX) {
      const chunk = block.subarray(at, at + STORED_MAX);
      // BFINAL 0, BTYPE 00 (stored), padded to the byte; LEN and its one's complement, little-endian.
      const n = chunk.length;
      parts.push(Uint8Array.from([0x00, n & 0xff, n >> 8, ~n & 0xff, (~n >> 8) & 0xff]), chunk);
    }
    parts.push(SYNC_MARKER);
    return concat(...parts);
  }
}

/** One direction's header decompressor (see the module comment for why it re-inflates). */
export class HeaderDecompressor {
  #compressed: Uint8Array = new Uint8Array(0);
  #produced = 0;

  decompress(chunk: Uint8Array): Uint8Array {
    const all = new Uint8Array(this.#compressed.length + chunk.length);
    all.set(this.#compressed);
    all.set(chunk, this.#compressed.length);
    this.#compressed = all;
    let out: Uint8Array;
    try {
      out = new Uint8Array(inflateSync(all, { dictionary: SPDY3_DICTIONARY, finishFlush: constants.Z_SYNC_FLUSH }));
    } catch (error) {
      throw new SpdyProtocolError(`header block does not inflate: ${(error as Error).message}`);
    }
    const block = out.subarray(this.#produced);
    this.#produced = out.length;
    return block;
  }
}
