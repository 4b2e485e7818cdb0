// A Node's kubelet endpoint, as far as the apiserver uses it for `pods/portforward`: HTTPS (the
// apiserver does not verify kubelet certificates unless told a CA), `/portForward/<namespace>/<pod>`
// upgraded to SPDY/3.1 `portforward.k8s.io`, then spdy/port-forward.ts. Which pod ports exist is the
// caller's `ports` function (the static pods of a control-plane Node: etcd's client port, the
// apiserver's). No authentication or authorization of the caller: it listens on loopback and only
// the node network routes to it. Not served: exec, attach, logs, metrics, websocket port-forward.
import type { IncomingMessage } from 'node:http';
import { createServer, type Server } from 'node:https';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { issueCertificate } from '../../envtest/pki.ts';
import { servePortForward } from './spdy/port-forward.ts';

/** The loopback port behind `port` of `pod` (namespace/name), or a reason it cannot be reached. */
export type PodPorts = (pod: string, port: number) => number | string;

export interface KubeletServer {
  readonly port: number;
  close(): Promise<void>;
}

const PROTOCOL = 'portforward.k8s.io';

/** `/portForward/<ns>/<pod>` (any query), or undefined. */
export function portForwardPod(url: string | undefined): string | undefined {
  const match = /^\/portForward\/([a-z0-9-]+)\/([a-z0-9.-]+)(\?.*)?$/.exec(url ?? '');
  return match ? `${match[1]}/${match[2]}` : undefined;
}

function refuse(socket: Duplex, status: string, text: string): void {
  socket.end(`HTTP/1.1 ${status}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`);
}

function onUpgrade(req: IncomingMessage, socket: Duplex, ports: PodPorts): void {
  const pod = portForwardPod(req.url);
  if (!pod) return refuse(socket, '404 Not Found', `no such kubelet endpoint: ${req.url}`);
  const upgrade = String(req.headers.upgrade ?? '').toLowerCase();
  const protocols = String(req.headers['x-stream-protocol-version'] ?? '').split(',').map((p) => p.trim());
  if (upgrade !== 'spdy/3.1' || !protocols.includes(PROTOCOL)) {
    return refuse(socket, '400 Bad Request', `port-forward needs Upgrade: SPDY/3.1 and X-Stream-Protocol-Version: ${PROTOCOL}`);
  }
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: ${PROTOCOL}\r\n\r\n`);
  servePortForward(socket, (port) => {
    const target = ports(pod, port);
    return typeof target === 'string' ? target : connect({ host: '127.0.0.1', port: target });
  });
}

export async function startKubeletServer(nodeName: string, ports: PodPorts): Promise<KubeletServer> {
  const cert = issueCertificate({ commonName: nodeName, dnsNames: [nodeName, 'localhost'], ipAddresses: ['127.0.0.1'], usage: 'server', days: 365 });
  const sockets = new Set<Socket | Duplex>();
  const server: Server = createServer({ cert: cert.certPem, key: cert.keyPem }, (_req, res) => {
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('the simulated kubelet serves port-forward only\n');
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    onUpgrade(req, socket, ports);
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
