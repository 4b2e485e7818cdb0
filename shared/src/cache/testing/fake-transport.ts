// Test double for the generated Transport: routes the list and watch requests a real `Api<T>` builds
// to one FakeListWatch per resource plural, so factory tests exercise real URL building without a
// server. Records every path it was asked for.
import { Buffer } from 'node:buffer';
import type { HttpRequest, KubeObject, StreamResponse, WatchOptions } from '@metal3-ts/generated';
import { FakeListWatch } from './fake-list-watch.ts';

export class FakeTransport {
  readonly paths: string[] = [];
  /** Calls of dropIdleConnections (the real transport destroys its pooled keep-alive sockets). */
  idleDrops = 0;

  dropIdleConnections(): void {
    this.idleDrops++;
  }
  readonly #sources = new Map<string, FakeListWatch<KubeObject>>();

  source(plural: string): FakeListWatch<KubeObject> {
    let source = this.#sources.get(plural);
    if (!source) this.#sources.set(plural, source = new FakeListWatch());
    return source;
  }

  async request<T>(request: HttpRequest): Promise<T> {
    this.paths.push(request.path);
    const { plural, query } = parse(request.path);
    const limit = query.get('limit');
    const token = query.get('continue');
    return (await this.source(plural).list({
      ...(limit ? { limit: Number(limit) } : {}),
      ...(token ? { continue: token } : {}),
    })) as T;
  }

  // async: a failure to start the watch rejects, as the real transport's does.
  // deno-lint-ignore require-await
  async stream(request: HttpRequest): Promise<StreamResponse> {
    this.paths.push(request.path);
    const { plural, query } = parse(request.path);
    const options: WatchOptions = {
      ...(query.get('resourceVersion') ? { resourceVersion: query.get('resourceVersion')! } : {}),
      allowWatchBookmarks: query.get('allowWatchBookmarks') === 'true',
      ...(request.signal ? { signal: request.signal } : {}),
    };
    const events = this.source(plural).watch(options);
    async function* body(): AsyncGenerator<Buffer> {
      for await (const event of events) yield Buffer.from(JSON.stringify(event) + '\n');
    }
    return { code: 200, headers: {}, body: body(), close: () => void events.return(undefined) };
  }
}

function parse(path: string): { plural: string; query: URLSearchParams } {
  const url = new URL(path, 'http://fake');
  const plural = url.pathname.split('/').at(-1) ?? '';
  return { plural, query: url.searchParams };
}
