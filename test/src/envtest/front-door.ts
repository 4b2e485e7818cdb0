// A loopback port that exists before the server behind it: connections are accepted at once and held
// until `open(port)` names the server's real port, then piped to it byte for byte (TLS passes through,
// so clients still verify the server's certificate). Why: a workload cluster's kubeconfig must name
// its address before its kube-apiserver has started, so the `<cluster>-kubeconfig` Secret can exist
// before Cluster API's ClusterCache first looks; a refused connection there costs a 30 s retry (CAPI
// `ConnectionCreationRetryInterval`, no flag), a held one only the rest of the apiserver's start.
// Once the door is closed the port refuses, as a stopped apiserver's would.
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface FrontDoor {
  readonly port: number;
  /** Pipes every held and future connection to 127.0.0.1:`port`. */
  open(port: number): void;
  /** Stops listening and ends every connection, held or piped. */
  close(): Promise<void>;
}

export async function openFrontDoor(): Promise<FrontDoor> {
  let upstream: number | undefined;
  const held: Socket[] = [];
  const live = new Set<Socket>();
  const track = (socket: Socket) => {
    live.add(socket);
    socket.once('close', () => live.delete(socket));
    // A peer resetting its end is that connection's business, not a crash of the test process.
    socket.on('error', () => socket.destroy());
  };
  const pipe = (client: Socket, port: number) => {
    const server = createConnection({ host: '127.0.0.1', port });
    track(server);
    server.once('close', () => client.destroy());
    client.once('close', () => server.destroy());
    client.pipe(server).pipe(client);
  };
  const listener: Server = createServer((client) => {
    track(client);
    if (upstream === undefined) {
      // Not read until piped: the bytes the client sent meanwhile stay buffered in the socket.
      client.pause();
      held.push(client);
    } else {
      pipe(client, upstream);
    }
  });
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => resolve());
  });
  const address = listener.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    open(to) {
      upstream = to;
      for (const client of held.splice(0)) if (!client.destroyed) pipe(client, to);
    },
    async close() {
      const closed = new Promise<void>((resolve) => listener.close(() => resolve()));
      for (const socket of live) socket.destroy();
      held.length = 0;
      await closed;
    },
  };
}
