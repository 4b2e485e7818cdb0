// Free loopback ports. kube-apiserver cannot listen on port 0 (its secure port is required), so the
// launcher asks the kernel for a free port, closes it and passes the number on. Another process can
// take the port in between: the caller detects that (ProcessExitError.portRace) and retries with
// fresh ports. Ports handed out by this process are remembered so two starts in one process never
// get the same one while the first is still binding.
import { createServer } from 'node:net';

const handedOut = new Set<number>();

function probe(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A port that was free on 127.0.0.1 a moment ago and was not handed out before by this process. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await probe();
    if (port > 0 && !handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('no free loopback port found in 50 attempts');
}

/** Lets a port be handed out again (after its process stopped). */
export function releasePort(port: number): void {
  handedOut.delete(port);
}
