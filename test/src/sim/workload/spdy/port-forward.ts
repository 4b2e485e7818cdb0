// The server side of one port-forward connection (`portforward.k8s.io` over SPDY/3.1), as a kubelet
// runs it after answering the upgrade: the client opens streams in pairs sharing a `requestid`, an
// `error` stream and a `data` stream, both naming the pod `port`. Once both are open the data stream
// is joined to a TCP connection the target opens; a failure to connect is written to the error
// stream. Every stream opened gets an empty SYN_REPLY (the client waits for it), PINGs are echoed,
// a data FIN half-closes the target connection and the target's end is a FIN back.
// Deviations from the kubelet: no idle timeout, no flow control (neither side of Go's spdystream
// uses it), streams whose partner never comes are only dropped with the connection.
import type { Duplex } from 'node:stream';
import { dataFrames, encodeFrame, type Frame, parseFrames, RST, SpdyProtocolError } from './frames.ts';
import { decodeHeaderBlock, encodeHeaderBlock, HeaderCompressor, HeaderDecompressor } from './headers.ts';

/** Opens the pod's port, or says why it cannot (written to the error stream). */
export type PortDialer = (port: number) => Duplex | string;

interface Request {
  port?: number;
  errorStream?: number;
  dataStream?: number;
  target?: Duplex;
}

export function servePortForward(socket: Duplex, dial: PortDialer): void {
  const compressor = new HeaderCompressor();
  const decompressor = new HeaderDecompressor();
  const requests = new Map<string, Request>();
  const byStream = new Map<number, Request>();
  let pending: Uint8Array = new Uint8Array(0);
  let closed = false;

  const send = (...frames: Uint8Array[]) => {
    if (!closed) { for (const frame of frames) socket.write(frame); }
  };
  const closeAll = () => {
    if (closed) return;
    closed = true;
    for (const request of requests.values()) request.target?.destroy();
    socket.destroy();
  };

  const start = (request: Request) => {
    const { errorStream, dataStream, port } = request;
    if (errorStream === undefined || dataStream === undefined || port === undefined) return;
    const target = dial(port);
    if (typeof target === 'string') {
      send(...dataFrames(errorStream, new TextEncoder().encode(target), true), ...dataFrames(dataStream, new Uint8Array(), true));
      return;
    }
    request.target = target;
    let connected = false;
    target.on('connect', () => (connected = true));
    target.on('data', (chunk: Uint8Array) => send(...dataFrames(dataStream, chunk, false)));
    target.on('end', () => send(...dataFrames(dataStream, new Uint8Array(), true), ...dataFrames(errorStream, new Uint8Array(), true)));
    target.on('error', (error: Error) => {
      const text = connected ? '' : `error forwarding port ${port}: ${error.message}`;
      send(...dataFrames(errorStream, new TextEncoder().encode(text), true), encodeFrame({ kind: 'rstStream', streamId: dataStream, status: RST.cancel }));
    });
  };

  const onSynStream = (frame: Extract<Frame, { kind: 'synStream' }>) => {
    const headers = decodeHeaderBlock(decompressor.decompress(frame.headerBlock));
    send(encodeFrame({ kind: 'synReply', streamId: frame.streamId, fin: false, headerBlock: compressor.compress(encodeHeaderBlock({})) }));
    const type = headers.get('streamtype')?.[0];
    const id = headers.get('requestid')?.[0] ?? String(frame.streamId);
    const port = Number(headers.get('port')?.[0]);
    if ((type !== 'error' && type !== 'data') || !Number.isInteger(port) || port <= 0 || port > 65535) {
      send(encodeFrame({ kind: 'rstStream', streamId: frame.streamId, status: RST.protocolError }));
      return;
    }
    const request = requests.get(id) ?? {};
    requests.set(id, request);
    byStream.set(frame.streamId, request);
    request.port = port;
    if (type === 'error') request.errorStream = frame.streamId;
    else request.dataStream = frame.streamId;
    start(request);
  };

  const onFrame = (frame: Frame) => {
    switch (frame.kind) {
      case 'synStream':
        return onSynStream(frame);
      case 'data': {
        const request = byStream.get(frame.streamId);
        if (!request || request.dataStream !== frame.streamId) return; // the error stream carries nothing to us
        if (frame.data.length > 0) request.target?.write(frame.data);
        if (frame.fin) request.target?.end();
        return;
      }
      case 'rstStream':
        byStream.get(frame.streamId)?.target?.destroy();
        return;
      case 'ping':
        return send(encodeFrame(frame));
      case 'goAway':
        return closeAll();
      default:
        return; // SYN_REPLY (we open no streams), SETTINGS, HEADERS, WINDOW_UPDATE
    }
  };

  socket.on('data', (chunk: Uint8Array) => {
    const buffer = new Uint8Array(pending.length + chunk.length);
    buffer.set(pending);
    buffer.set(chunk, pending.length);
    try {
      const { frames, rest } = parseFrames(buffer);
      pending = rest.slice();
      for (const frame of frames) onFrame(frame);
    } catch (error) {
      if (!(error instanceof SpdyProtocolError)) throw error;
      send(encodeFrame({ kind: 'goAway', lastGoodStreamId: 0, status: 1 }));
      closeAll();
    }
  });
  socket.on('end', closeAll);
  socket.on('close', closeAll);
  socket.on('error', closeAll);
}
