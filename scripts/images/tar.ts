// A POSIX ustar writer and reader, just enough for OCI image layers and layout archives. The writer is
// deterministic (mtime 0, uid/gid 0, no user names) so the same tree always gives the same bytes and
// therefore the same digest; the reader understands what the writer writes plus the common types
// (files, directories, symlinks) and skips pax headers.

export type TarEntry =
  | { readonly type: 'file'; readonly path: string; readonly mode: number; readonly data: Uint8Array }
  | { readonly type: 'dir'; readonly path: string; readonly mode: number }
  | { readonly type: 'symlink'; readonly path: string; readonly target: string };

const BLOCK = 512;

/** Thrown for a path the ustar format cannot hold, or an archive the reader cannot parse. */
export class TarError extends Error {
  override name = 'TarError';
}

/** Builds an archive as a list of chunks (a 120 MB binary is referenced, not copied). */
export class TarWriter {
  readonly chunks: Uint8Array[] = [];
  #size = 0;

  add(entry: TarEntry): this {
    const data = entry.type === 'file' ? entry.data : new Uint8Array(0);
    const mode = entry.type === 'symlink' ? 0o777 : entry.mode;
    const flag = entry.type === 'file' ? '0' : entry.type === 'dir' ? '5' : '2';
    const path = entry.type === 'dir' && !entry.path.endsWith('/') ? `${entry.path}/` : entry.path;
    this.#push(header(path, mode, data.length, flag, entry.type === 'symlink' ? entry.target : ''));
    if (data.length > 0) {
      this.#push(data);
      const pad = (BLOCK - (data.length % BLOCK)) % BLOCK;
      if (pad > 0) this.#push(new Uint8Array(pad));
    }
    return this;
  }

  /** Appends the two zero blocks that end an archive and returns the chunks. */
  finish(): Uint8Array[] {
    this.#push(new Uint8Array(2 * BLOCK));
    return this.chunks;
  }

  get size(): number {
    return this.#size;
  }

  #push(chunk: Uint8Array): void {
    this.chunks.push(chunk);
    this.#size += chunk.length;
  }
}

function header(path: string, mode: number, size: number, flag: string, link: string): Uint8Array {
  const h = new Uint8Array(BLOCK);
  const [prefix, name] = splitPath(path);
  put(h, 0, 100, name);
  octal(h, 100, 8, mode);
  octal(h, 108, 8, 0);
  octal(h, 116, 8, 0);
  octal(h, 124, 12, size);
  octal(h, 136, 12, 0);
  h.fill(0x20, 148, 156);
  put(h, 156, 1, flag);
  if (Buffer.byteLength(link) > 100) throw new TarError(`link target longer than 100 bytes: ${link}`);
  put(h, 157, 100, link);
  put(h, 257, 6, 'ustar\0');
  put(h, 263, 2, '00');
  put(h, 345, 155, prefix);
  let sum = 0;
  for (const b of h) sum += b;
  put(h, 148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  return h;
}

/** ustar keeps up to 155 bytes of directories in `prefix` and the last 100 in `name`. */
export function splitPath(path: string): [prefix: string, name: string] {
  if (Buffer.byteLength(path) <= 100) return ['', path];
  for (let i = path.indexOf('/'); i >= 0; i = path.indexOf('/', i + 1)) {
    const prefix = path.slice(0, i);
    const name = path.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(name) <= 100 && name !== '') return [prefix, name];
  }
  throw new TarError(`path too long for ustar: ${path}`);
}

function put(h: Uint8Array, at: number, width: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length > width) throw new TarError(`"${text}" does not fit in ${width} bytes`);
  h.set(bytes, at);
}

function octal(h: Uint8Array, at: number, width: number, value: number): void {
  put(h, at, width, `${value.toString(8).padStart(width - 1, '0')}\0`);
}

/** The entries of an archive, in order; pax extended headers are skipped, unknown types refused. */
export function readTar(archive: Uint8Array): TarEntry[] {
  const out: TarEntry[] = [];
  const text = (at: number, width: number) => {
    const field = archive.subarray(at, at + width);
    const end = field.indexOf(0);
    return Buffer.from(end >= 0 ? field.subarray(0, end) : field).toString('utf8');
  };
  for (let at = 0; at + BLOCK <= archive.length;) {
    if (archive.subarray(at, at + BLOCK).every((b) => b === 0)) break;
    const prefix = text(at + 345, 155);
    const path = prefix ? `${prefix}/${text(at, 100)}` : text(at, 100);
    const mode = parseInt(text(at + 100, 8).trim() || '0', 8);
    const size = parseInt(text(at + 124, 12).trim() || '0', 8);
    const flag = text(at + 156, 1) || '0';
    const link = text(at + 157, 100);
    const data = archive.subarray(at + BLOCK, at + BLOCK + size);
    if (data.length !== size) throw new TarError(`truncated archive at ${path}`);
    at += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    if (flag === '0' || flag === '7') out.push({ type: 'file', path, mode, data });
    else if (flag === '5') out.push({ type: 'dir', path: path.replace(/\/$/, ''), mode });
    else if (flag === '2') out.push({ type: 'symlink', path, target: link });
    else if (flag === 'x' || flag === 'g') continue;
    else throw new TarError(`unsupported tar entry type "${flag}" at ${path}`);
  }
  return out;
}
