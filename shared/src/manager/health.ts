// Named health and readiness checks and their HTTP rendering, in the Kubernetes healthz format that
// controller-runtime serves: `ok` when every check passes, otherwise 500 with one `[+]name ok` /
// `[-]name failed: reason withheld` line per check. `?verbose` lists the checks on success too,
// `?exclude=name` skips one, and `/readyz/<name>` runs a single check. A check may say why it failed
// (`{ ok: false, reason }`); the reason replaces "reason withheld", so an operator reading the probe
// sees what is wrong (e.g. which verb on which resource RBAC refuses). Reasons name resources and
// verbs, never object contents.
import type { Logger } from '../log/logger.ts';

export interface CheckVerdict {
  readonly ok: boolean;
  readonly reason?: string | undefined;
}

export type Check = () => boolean | CheckVerdict | Promise<boolean | CheckVerdict>;

export interface CheckResult {
  readonly name: string;
  readonly ok: boolean;
  readonly reason?: string | undefined;
}

export interface ProbeResponse {
  readonly status: number;
  readonly body: string;
}

export class Checks {
  readonly kind: string;
  readonly #checks = new Map<string, Check>();

  /** `kind` is the endpoint name: `healthz` or `readyz`. */
  constructor(kind: string) {
    this.kind = kind;
  }

  add(name: string, check: Check): void {
    if (!/^[a-zA-Z0-9_.-]+$/.test(name)) throw new Error(`${this.kind} check name "${name}": use letters, digits, '-', '_' or '.'`);
    if (this.#checks.has(name)) throw new Error(`${this.kind} check "${name}" is already registered`);
    this.#checks.set(name, check);
  }

  names(): string[] {
    return [...this.#checks.keys()];
  }

  /** Runs the checks (all, or the one named) concurrently; a check that throws has failed. */
  async run(options: { only?: string; exclude?: readonly string[]; log?: Logger } = {}): Promise<CheckResult[] | undefined> {
    if (options.only !== undefined && !this.#checks.has(options.only)) return undefined;
    const selected = [...this.#checks].filter(([name]) => (options.only === undefined ? !options.exclude?.includes(name) : name === options.only));
    return await Promise.all(
      selected.map(async ([name, check]) => {
        try {
          const value = await check();
          const { ok, reason } = typeof value === 'boolean' ? { ok: value, reason: undefined } : value;
          if (!ok) options.log?.info(`${this.kind} check failed`, { check: name, ...(reason ? { reason } : {}) });
          return { name, ok, ...(reason && !ok ? { reason } : {}) };
        } catch (error) {
          options.log?.info(`${this.kind} check failed`, { check: name, error });
          return { name, ok: false };
        }
      }),
    );
  }

  /** Serves one request path below this endpoint (`''` for all checks, or a check name). */
  async respond(subpath: string, query: URLSearchParams, log?: Logger): Promise<ProbeResponse> {
    const only = subpath === '' ? undefined : subpath;
    const results = await this.run({ ...(only !== undefined ? { only } : {}), exclude: query.getAll('exclude'), ...(log ? { log } : {}) });
    if (!results) return { status: 404, body: `${this.kind} check "${subpath}" not found\n` };
    return renderChecks(this.kind, results, query.has('verbose'));
  }
}

/** The healthz text format; pure so it can be tested without a server. */
export function renderChecks(kind: string, results: readonly CheckResult[], verbose: boolean): ProbeResponse {
  const ok = results.every((r) => r.ok);
  if (ok && !verbose) return { status: 200, body: 'ok' };
  const lines = results.map((r) => (r.ok ? `[+]${r.name} ok` : `[-]${r.name} failed: ${r.reason?.replace(/\s+/g, ' ') ?? 'reason withheld'}`));
  lines.push(ok ? `${kind} check passed` : `${kind} check failed`);
  return { status: ok ? 200 : 500, body: lines.join('\n') + '\n' };
}
