// The front door holds connections made before its server exists and pipes them once it does; closed,
// it refuses. Real loopback sockets, an echo server standing in for the apiserver.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { openFrontDoor } from './front-door.ts';

async function echoServer(): Promise<{ server: Server; port: number }> {
  const server = createServer((s) => s.pipe(s));
  server.listen({ host: '127.0.0.1', port: 0 });
  await once(server, 'listening');
  const address = server.address();
  return { server, port: typeof address === 'object' && address ? address.port : 0 };
}

async function reply(socket: Socket, text: string): Promise<string> {
  let got = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (got += chunk));
  socket.write(text);
  while (got.length < text.length) await once(socket, 'data');
  return got;
}

test('bytes sent before the server exists are held, then answered once the door opens; later clients are piped at once', async () => {
  const door = await openFrontDoor();
  const early = connect({ host: '127.0.0.1', port: door.port });
  await once(early, 'connect');
  early.write('sent while nothing listens; ');
  const { server, port } = await echoServer();
  try {
    door.open(port);
    assert.is(await reply(early, 'then more'), 'sent while nothing listens; then more');
    const late = connect({ host: '127.0.0.1', port: door.port });
    assert.is(await reply(late, 'late'), 'late');
    late.destroy();
  } finally {
    early.destroy();
    await door.close();
    server.close();
  }
});

test('closed, the door ends its connections and refuses new ones', async () => {
  const door = await openFrontDoor();
  const held = connect({ host: '127.0.0.1', port: door.port });
  await once(held, 'connect');
  const ended = once(held, 'close');
  await door.close();
  await ended;
  const refused = connect({ host: '127.0.0.1', port: door.port });
  const [error] = await once(refused, 'error');
  assert.is((error as NodeJS.ErrnoException).code, 'ECONNREFUSED');
});

test.run();
