// SPDY/3.1 frames and header blocks, bytes in and out (issue 17: the kubelet's port-forward endpoint).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { constants, inflateSync } from 'node:zlib';
import { SPDY3_DICTIONARY } from './dictionary.ts';
import { dataFrames, encodeFrame, type Frame, parseFrames, SpdyProtocolError } from './frames.ts';
import { decodeHeaderBlock, encodeHeaderBlock, HeaderCompressor, HeaderDecompressor } from './headers.ts';

const test = suite('spdy frames');
const hex = (text: string): Uint8Array => Uint8Array.from(Buffer.from(text.replace(/\s/g, ''), 'hex'));
const toHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

test('the dictionary is the SPDY/3 one: 1423 bytes, Adler-32 0xe3c6a7c2', () => {
  assert.is(SPDY3_DICTIONARY.length, 1423);
  let a = 1, b = 0;
  for (const byte of SPDY3_DICTIONARY) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  assert.is(((b << 16) | a) >>> 0, 0xe3c6a7c2);
});

test('frames encode to their wire bytes', () => {
  const cases: [Frame, string][] = [
    [{ kind: 'data', streamId: 3, fin: false, data: hex('6869') }, '00000003 00000002 6869'],
    [{ kind: 'data', streamId: 3, fin: true, data: new Uint8Array() }, '00000003 01000000'],
    [{ kind: 'synReply', streamId: 1, fin: false, headerBlock: hex('aabb') }, '80030002 00000006 00000001 aabb'],
    [{ kind: 'synStream', streamId: 5, fin: false, headerBlock: hex('cc') }, '80030001 0000000b 00000005 00000000 0000 cc'],
    [{ kind: 'rstStream', streamId: 7, status: 5 }, '80030003 00000008 00000007 00000005'],
    [{ kind: 'ping', id: 2 }, '80030006 00000004 00000002'],
    [{ kind: 'goAway', lastGoodStreamId: 9, status: 0 }, '80030007 00000008 00000009 00000000'],
  ];
  for (const [frame, wire] of cases) {
    assert.is(toHex(encodeFrame(frame)), wire.replace(/\s/g, ''), frame.kind);
    assert.equal(parseFrames(encodeFrame(frame)).frames, [frame], `${frame.kind} parses back`);
  }
});

test('parseFrames keeps an incomplete tail; WINDOW_UPDATE and SETTINGS parse as other', () => {
  const ping = encodeFrame({ kind: 'ping', id: 1 });
  const window = hex('80030009 00000008 00000001 00010000');
  const bytes = new Uint8Array([...ping, ...window, ...ping.subarray(0, 5)]);
  const { frames, rest } = parseFrames(bytes);
  assert.equal(frames.map((f) => f.kind), ['ping', 'other']);
  assert.is(rest.length, 5);
  assert.throws(() => parseFrames(hex('80020006 00000004 00000001')), (e: unknown) => e instanceof SpdyProtocolError && /version 2/.test(e.message));
});

test('dataFrames: one empty FIN frame for no data; FIN only on the last', () => {
  assert.equal(dataFrames(1, new Uint8Array(), true).map(toHex), ['0000000101000000']);
  assert.equal(dataFrames(1, hex('01'), false).map(toHex), ['000000010000000101']);
});

test('header blocks round-trip; several values of one name are NUL-joined; names lower-case', () => {
  const block = encodeHeaderBlock({ Port: '2379', streamtype: 'data', multi: ['a', 'b'] });
  assert.equal([...decodeHeaderBlock(block)], [['port', ['2379']], ['streamtype', ['data']], ['multi', ['a', 'b']]]);
  assert.is(toHex(encodeHeaderBlock({})), '00000000');
  assert.throws(() => decodeHeaderBlock(hex('00000001 00000009 6162')), (e: unknown) => e instanceof SpdyProtocolError);
});

test('the compressor writes one zlib stream of stored blocks that zlib inflates with the dictionary', () => {
  const compressor = new HeaderCompressor();
  const first = compressor.compress(encodeHeaderBlock({ a: '1' }));
  const second = compressor.compress(encodeHeaderBlock({}));
  assert.is(toHex(first.subarray(0, 6)), '7820e3c6a7c2', 'zlib header with the dictionary id, on the first block only');
  assert.is(toHex(second), '0004 00fbff 00000000 000000ffff'.replace(/\s/g, ''));
  const all = new Uint8Array([...first, ...second]);
  const inflated = inflateSync(all, { dictionary: SPDY3_DICTIONARY, finishFlush: constants.Z_SYNC_FLUSH });
  assert.is(toHex(inflated), toHex(new Uint8Array([...encodeHeaderBlock({ a: '1' }), ...encodeHeaderBlock({})])));
});

test('the decompressor follows a deflated header stream across frames (as a Go client compresses it)', () => {
  // zlib level 9 with the dictionary and a sync flush per block: the port-forward client's error and data streams.
  const errorStream = hex('78f9e3c6a7c202253a48f95b044eea46c6e696409ab308125f99a074cc68004e892545a989b9d0c2863515141500000000ffff');
  const dataStream = hex('225333a8a44a04000000ffff');
  const decompressor = new HeaderDecompressor();
  assert.equal([...decodeHeaderBlock(decompressor.decompress(errorStream))], [['port', ['2379']], ['requestid', ['0']], ['streamtype', ['error']]]);
  assert.equal([...decodeHeaderBlock(decompressor.decompress(dataStream))], [['port', ['2379']], ['requestid', ['0']], ['streamtype', ['data']]]);
  assert.throws(() => new HeaderDecompressor().decompress(hex('0102030405')), (e: unknown) => e instanceof SpdyProtocolError);
});

test.run();
