// A port-forward client for tests: `pods/portforward` on an apiserver, upgraded to SPDY/3.1 like
// client-go does it (one error stream, one data stream, `requestid` 0), returning the data stream as
// a Duplex to speak TLS or HTTP over. It shares the framing with the simulated kubelet's server, so
// what proves the two agree with real clients is KubeadmControlPlane's etcd client (e2e real-kcp).
import { request } from 'node:https';
import { Duplex } from 'node:stream';
import type { Connection } from '../envtest/kubeconfig.ts';
import { dataFrames, encodeFrame, parseFrames } from '../sim/workload/spdy/frames.ts';
import { encodeHeaderBlock, HeaderCompressor } from '../sim/workload/spdy/headers.ts';

const ERROR_STREAM = 1;
const DATA_STREAM = 3;

function upgrade(connection: Connection, namespace: string, pod: string): Promise<Duplex> {
  const url = new URL(`${connection.server}/api/v1/namespaces/${namespace}/pods/${pod}/portforward`);
  return new Promise((resolve, reject) => {
    const req = request({
      method: 'POST',
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      ca: connection.caPem,
      ...(connection.certPem ? { cert: connection.certPem, key: connection.keyPem } : {}),
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'SPDY/3.1',
        'X-Stream-Protocol-Version': 'portforward.k8s.io',
        ...(connection.token ? { Authorization: `Bearer ${connection.token}` } : {}),
      },
    });
    req.on('upgrade', (_res, socket) => resolve(socket));
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => reject(new Error(`port-forward to ${namespace}/${pod} refused: HTTP ${res.statusCode}: ${body.trim()}`)));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Connects to `port` of the pod through the apiserver; rejects with the kubelet's error text if the port cannot be reached. */
export async function portForward(connection: Connection, namespace: string, pod: string, port: number): Promise<Duplex> {
  const socket = await upgrade(connection, namespace, pod);
  const compressor = new HeaderCompressor();
  const open = (streamId: number, type: string) =>
    encodeFrame({
      kind: 'synStream',
      streamId,
      fin: false,
      headerBlock: compressor.compress(encodeHeaderBlock({ streamtype: type, port: String(port), requestid: '0' })),
    });
  let pending: Uint8Array = new Uint8Array(0);
  let replies = 0;
  let errorText = '';
  let ready: (() => void) | undefined;
  const stream = new Duplex({
    write(chunk: Uint8Array, _encoding, callback) {
      for (const frame of dataFrames(DATA_STREAM, chunk, false)) socket.write(frame);
      callback();
    },
    final(callback) {
      for (const frame of dataFrames(DATA_STREAM, new Uint8Array(), true)) socket.write(frame);
      callback();
    },
    read() {},
    destroy(error, callback) {
      socket.destroy();
      callback(error);
    },
  });
  socket.on('data', (chunk: Uint8Array) => {
    const buffer = new Uint8Array([...pending, ...chunk]);
    const { frames, rest } = parseFrames(buffer);
    pending = rest.slice();
    for (const frame of frames) {
      if (frame.kind === 'synReply' && ++replies === 2) ready?.();
      if (frame.kind === 'data' && frame.streamId === ERROR_STREAM) {
        errorText += new TextDecoder().decode(frame.data);
      }
      if (frame.kind === 'data' && frame.streamId === DATA_STREAM) {
        if (frame.data.length > 0) stream.push(frame.data);
        // The kubelet writes a failure to the error stream before it ends the data stream. Destroyed
        // after the caller had a chance to listen: the stream may be returned in this same turn.
        if (frame.fin && errorText) setImmediate(() => stream.destroy(new Error(errorText)));
        else if (frame.fin) stream.push(null);
      }
      if (frame.kind === 'rstStream' && frame.streamId === DATA_STREAM) stream.destroy(new Error(`port-forward stream reset: ${errorText}`));
      if (frame.kind === 'ping') socket.write(encodeFrame(frame));
    }
  });
  socket.on('close', () => stream.push(null));
  socket.on('error', (error) => stream.destroy(error));
  await new Promise<void>((resolve) => {
    ready = resolve;
    socket.write(open(ERROR_STREAM, 'error'));
    socket.write(open(DATA_STREAM, 'data'));
    socket.write(dataFrames(ERROR_STREAM, new Uint8Array(), true)[0]!); // client-go closes its side of the error stream at once
  });
  return stream;
}
