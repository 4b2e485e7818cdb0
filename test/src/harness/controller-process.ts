// A bundled controller running as a child process under Node (with the images' V8 flags and
// environment, so tests run what ships) or Deno: its JSON log lines, the addresses it serves (read
// from its own "serving" log lines), HTTP probes, and a guarantee that it never outlives the test
// process.
import { type ChildProcess, spawn } from 'node:child_process';
import * as http from 'node:http';
import { join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { imageEnvironment, NODE_FLAGS } from '../../../scripts/images/spec.ts';
import { type Eventually, eventuallyWith, sleep } from '../testing/eventually.ts';

/** The repository root (this file is test/src/harness/controller-process.ts). */
export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const bin = join(repoRoot, 'node_modules', '.bin');
export const runtimes = { node: join(bin, 'node'), deno: join(bin, 'deno') } as const;
export type Runtime = keyof typeof runtimes;

export interface Launch {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
}

export type LogLine = Record<string, unknown> & { msg: string; level: string };

const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

export class ControllerProcess {
  readonly runtime: Runtime;
  readonly child: ChildProcess;
  readonly lines: LogLine[] = [];
  /** performance.now() when the process was spawned. */
  readonly startedMs = performance.now();
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; atMs: number }>;
  #stderr = '';

  /**
   * `launch` replaces the runtime's command line (and environment) with another that runs the bundle,
   * e.g. a container-like sandbox around the image's own node (test/e2e/src/images/pod.ts).
   */
  constructor(runtime: Runtime, bundle: string, args: readonly string[], launch?: Launch) {
    this.runtime = runtime;
    // Under Node, as the images run it: their V8 flags and environment (scripts/images/spec.ts).
    const argv = runtime === 'deno' ? ['run', '--quiet', '-A', bundle, ...args] : [...NODE_FLAGS, bundle, ...args];
    const env = { ...process.env, ...(runtime === 'node' ? imageEnvironment() : {}), NO_COLOR: '1', KUBECONFIG: '' };
    this.child = launch
      ? spawn(launch.command, launch.args, { stdio: ['ignore', 'ignore', 'pipe'], env: launch.env })
      : spawn(runtimes[runtime], argv, { stdio: ['ignore', 'ignore', 'pipe'], env });
    children.add(this.child);
    this.child.stderr!.setEncoding('utf8');
    this.child.stderr!.on('data', (chunk: string) => {
      this.#stderr += chunk;
      let newline: number;
      while ((newline = this.#stderr.indexOf('\n')) >= 0) {
        const text = this.#stderr.slice(0, newline);
        this.#stderr = this.#stderr.slice(newline + 1);
        try {
          this.lines.push(JSON.parse(text) as LogLine);
        } catch {
          this.lines.push({ msg: text, level: 'raw' });
        }
      }
    });
    this.exited = new Promise((resolve) => {
      // 'close', not 'exit': by then stderr is drained and every log line is in `lines`.
      this.child.once('close', (code, signal) => {
        children.delete(this.child);
        resolve({ code, signal, atMs: performance.now() });
      });
    });
  }

  /** Waits for a log line matching `match`; fails with the log tail if the process exits first. */
  async waitForLine(match: (line: LogLine) => boolean, timeoutMs = 20_000): Promise<LogLine> {
    const end = performance.now() + timeoutMs;
    for (;;) {
      const found = this.lines.find(match);
      if (found) return found;
      if (this.child.exitCode !== null || performance.now() > end) {
        throw new Error(`${this.runtime} controller: expected log line not seen (exit ${this.child.exitCode}); log tail:\n${this.tail()}`);
      }
      await sleep(20);
    }
  }

  /** The address the manager logged as serving `path` (`metrics`, `healthz` or `readyz`). */
  async address(path: string): Promise<string> {
    const line = await this.waitForLine((l) => l.msg === 'serving' && String(l['paths']).split(',').includes(path));
    return String(line['address']);
  }

  tail(n = 30): string {
    return this.lines.slice(-n).map((l) => JSON.stringify(l)).join('\n');
  }

  kill(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }
}

export { sleep };

export function httpGet(address: string, path: string): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(`http://${address}${path}`, { agent: false, timeout: 5000 }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }));
      })
      .on('error', reject);
  });
}

/** Polls `probe` until it returns a value other than undefined (15 s unless told). */
export const eventually: Eventually = eventuallyWith({ timeoutMs: 15_000 });

/** The value of one sample line (`name{labels} value`) of a Prometheus text exposition. */
export function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
