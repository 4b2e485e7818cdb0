// The fake behind the generated client. It replaces the Transport's wire (requestText and stream)
// with the FakeApiServer, so every line of `Api<T>` (paths, query strings, content types, error
// typing) runs unchanged: a test of a phase exercises the same client code as production, and the
// contract suite compares the fake with the real apiserver at the HTTP boundary where they differ.
// Bodies cross as JSON text both ways, as on the wire, so no reference is shared with the store.
// The transport's hooks run as for a real one (instrument() can count the fake's requests).
import { setImmediate } from 'node:timers';
import { apiError, Client, type HttpRequest, type Status, type StreamResponse, Transport } from '@metal3-ts/generated';
import { FakeApiServer, type FakeApiServerOptions } from './server.ts';
import { badRequest, notServed } from './replies.ts';
import { SelectorError } from './selectors.ts';
import { openWatch } from './watch.ts';

const FAKE_SERVER = 'http://fake-apiserver.invalid';

function failureOf(code: number, text: string, request: HttpRequest): Error {
  const status = JSON.parse(text) as Status;
  return apiError(code, status, { verb: request.method, path: request.path }, text.slice(0, 500));
}

/** A Transport whose requests the fake `server` answers; nothing leaves the process. */
export function fakeTransport(server: FakeApiServer): Transport {
  const transport = Transport.fromConnection({ server: FAKE_SERVER });
  const host = transport.server.host;
  const observe = async (request: HttpRequest): Promise<(code: number) => void> => {
    if (request.signal?.aborted) throw request.signal.reason;
    await transport.hooks.before?.(request);
    const started = performance.now();
    return (code) =>
      transport.hooks.after?.({
        verb: request.verb,
        resource: request.resource,
        method: request.method,
        host,
        code,
        seconds: (performance.now() - started) / 1000,
      });
  };

  transport.requestText = async (request: HttpRequest): Promise<string> => {
    const done = await observe(request);
    // One turn of the event loop, as a network round trip gives: concurrent callers interleave.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const body = request.body === undefined ? undefined : JSON.parse(JSON.stringify(request.body));
    const reply = server.handle({ method: request.method, path: request.path, body, ...(request.contentType ? { contentType: request.contentType } : {}) });
    done(reply.code);
    const text = JSON.stringify(reply.body);
    if (reply.code >= 400) throw failureOf(reply.code, text, request);
    return text;
  };

  transport.stream = async (request: HttpRequest): Promise<StreamResponse> => {
    const done = await observe(request);
    const route = server.routes.parse(request.path);
    if (!route || route.name !== undefined || request.method !== 'GET') {
      const reply = notServed();
      done(reply.code);
      throw failureOf(reply.code, JSON.stringify(reply.body), request);
    }
    let watch;
    try {
      watch = openWatch(server, route, request.signal);
    } catch (error) {
      if (!(error instanceof SelectorError)) throw error;
      const reply = badRequest(error.message);
      done(reply.code);
      throw failureOf(reply.code, JSON.stringify(reply.body), request);
    }
    done(200);
    return { code: 200, headers: {}, body: watch.body, close: watch.close };
  };
  return transport;
}

export interface FakeCluster {
  readonly server: FakeApiServer;
  readonly client: Client;
  /** Another client of the same server (a second controller, a test acting as the user). */
  newClient(): Client;
}

/** A fake apiserver and a generated Client talking to it. */
export function fakeCluster(options: FakeApiServerOptions = {}): FakeCluster {
  const server = new FakeApiServer(options);
  return { server, client: new Client(fakeTransport(server)), newClient: () => new Client(fakeTransport(server)) };
}
