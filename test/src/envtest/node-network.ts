// The network between a workload apiserver and its Nodes. A workload apiserver reaches kubelets
// (port-forward, exec, logs) through its `cluster` egress, configured here as an HTTP CONNECT proxy
// on a unix socket (the apiserver's TCP transport for it is TLS-only): `CONNECT <node name>:<kubelet port>` is answered by whichever loopback port a
// simulated kubelet attached under that Node name, and refused (502) for any other name. The Nodes'
// addresses stay the lab's (never dialled) and the apiserver keeps `--kubelet-preferred-address-types
// =Hostname`, so nothing leaves the machine, and Node names of different workload clusters never meet.
import { rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface NodeNetwork {
  /** The unix socket of the proxy, which the apiserver's egress selector names. */
  readonly socketPath: string;
  /** Routes connections for `host` (a Node name) to a loopback port; replaces an earlier route. */
  attach(host: string, port: number): void;
  detach(host: string, port?: number): void;
  close(): Promise<void>;
}

/** The CONNECT request line's target, or undefined for anything else. */
export function connectTarget(head: string): { host: string; port: number } | undefined {
  const match = /^CONNECT ([^\s:]+):(\d+) HTTP\/1\.[01]\r\n/.exec(head);
  return match ? { host: match[1]!, port: Number(match[2]) } : undefined;
}

function serve(client: Socket, routes: ReadonlyMap<string, number>, sockets: Set<Socket>): void {
  let head = '';
  const onData = (chunk: Buffer) => {
    head += chunk.toString('latin1');
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) {
      if (head.length > 8192) client.destroy();
      return;
    }
    client.off('data', onData);
    const target = connectTarget(head);
    const port = target && routes.get(target.host);
    if (port === undefined) {
      client.end(`HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    const upstream = createConnection({ host: '127.0.0.1', port });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('connect', () => {
      client.write('HTTP/1.1 200 Connection established\r\n\r\n');
      const rest = Buffer.from(head.slice(end + 4), 'latin1');
      if (rest.length > 0) upstream.write(rest);
      client.pipe(upstream).pipe(client);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  };
  client.on('data', onData);
}

/** Unix socket paths are limited to 107 bytes on Linux. */
const MAX_SOCKET_PATH = 107;

export async function startNodeNetwork(socketPath: string): Promise<NodeNetwork> {
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH) {
    throw new Error(`node network socket path is longer than ${MAX_SOCKET_PATH} bytes (use a shorter TMPDIR): ${socketPath}`);
  }
  rmSync(socketPath, { force: true });
  const routes = new Map<string, number>();
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    serve(client, routes, sockets);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  server.unref();
  return {
    socketPath,
    attach: (host, target) => void routes.set(host, target),
    detach: (host, target) => {
      if (target === undefined || routes.get(host) === target) routes.delete(host);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => {
          rmSync(socketPath, { force: true });
          resolve();
        });
      }),
  };
}

/** The apiserver's --egress-selector-config-file: kubelet traffic (`cluster`) through the node network. */
export function writeEgressSelectorConfig(path: string, socketPath: string): void {
  writeFileSync(
    path,
    [
      'apiVersion: apiserver.k8s.io/v1beta1',
      'kind: EgressSelectorConfiguration',
      'egressSelections:',
      '- name: cluster',
      '  connection:',
      '    proxyProtocol: HTTPConnect',
      '    transport:',
      '      uds:',
      `        udsName: ${socketPath}`,
      '',
    ].join('\n'),
  );
}
