// Structured logs: one JSON object per line on stderr, in the shape log collectors expect from
// Kubernetes components (`ts`, `level`, `msg`, then fields). Loggers are cheap to derive: a reconcile
// gets one carrying controller, namespace, name and reconcileID.
import process from 'node:process';

export type Level = 'debug' | 'info' | 'warn' | 'error';
export type Fields = Readonly<Record<string, unknown>>;

const rank: Record<Level, number> = { debug: 0, info: 1, warn: 2, error: 3 };

export interface Logger {
  debug(msg: string, fields?: Fields): void;
  info(msg: string, fields?: Fields): void;
  warn(msg: string, fields?: Fields): void;
  error(msg: string, fields?: Fields): void;
  /** A logger that adds `fields` to every line. */
  with(fields: Fields): Logger;
}

export type Sink = (line: string) => void;

export interface LoggerOptions {
  readonly level?: Level;
  readonly sink?: Sink;
  readonly fields?: Fields;
}

const stderrSink: Sink = (line) => process.stderr.write(line + '\n');

export function newLogger(options: LoggerOptions = {}): Logger {
  return new JsonLogger(rank[options.level ?? 'info'], options.sink ?? stderrSink, options.fields ?? {});
}

/** Discards everything: for tests and libraries used without a logger. */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  with: () => silentLogger,
};

export function parseLevel(text: string): Level {
  if (text in rank) return text as Level;
  throw new Error(`log level "${text}": expected one of ${Object.keys(rank).join(', ')}`);
}

class JsonLogger implements Logger {
  readonly #min: number;
  readonly #sink: Sink;
  readonly #fields: Fields;

  constructor(min: number, sink: Sink, fields: Fields) {
    this.#min = min;
    this.#sink = sink;
    this.#fields = fields;
  }

  debug(msg: string, fields?: Fields): void {
    this.#write('debug', msg, fields);
  }
  info(msg: string, fields?: Fields): void {
    this.#write('info', msg, fields);
  }
  warn(msg: string, fields?: Fields): void {
    this.#write('warn', msg, fields);
  }
  error(msg: string, fields?: Fields): void {
    this.#write('error', msg, fields);
  }

  with(fields: Fields): Logger {
    return new JsonLogger(this.#min, this.#sink, { ...this.#fields, ...fields });
  }

  #write(level: Level, msg: string, fields: Fields | undefined): void {
    if (rank[level] < this.#min) return;
    const entry = { ts: new Date().toISOString(), level, msg, ...this.#fields, ...fields };
    this.#sink(JSON.stringify(entry, errorsAsText));
  }
}

// Errors have no enumerable fields; log their name and message (never a request body or a secret).
function errorsAsText(_key: string, value: unknown): unknown {
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  return value;
}
