// Kubeconfig and in-cluster configuration, read into the generated runtime's plain Connection. Our own
// small loader: @kubernetes/client-node would cost ~80 MB of resident memory, more than a whole idle
// controller may use.
//
// Supported: server, certificate-authority(-data), insecure-skip-tls-verify, tls-server-name;
// token, tokenFile (re-read as it rotates), client-certificate(-data), client-key(-data); a chosen or
// the current context. Not supported, rejected with a KubeConfigError that says so: exec and
// auth-provider plugins, basic auth, impersonation and proxy-url. For exec plugins or OIDC, load the
// file with @kubernetes/client-node yourself and build `Transport.fromKubeConfig(kc)`, then
// `new Client(transport)`: that path takes its credentials from the library.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import process from 'node:process';
import { Buffer } from 'node:buffer';
import { parse } from 'yaml';
import type { Connection } from '@metal3-ts/generated';

/** A kubeconfig (or the in-cluster environment) that cannot be turned into a Connection. */
export class KubeConfigError extends Error {
  override name = 'KubeConfigError';
}

/** What a kubeconfig selects: the connection plus the names around it. */
export interface KubeConfigSelection {
  readonly connection: Connection;
  readonly context: string;
  readonly cluster: string;
  readonly user: string;
  /** The context's default namespace, if it sets one. */
  readonly namespace: string | undefined;
}

export interface KubeConfigOptions {
  /** Context to use instead of `current-context`. */
  readonly context?: string;
  /** Directory relative file paths are resolved against (the kubeconfig file's own directory). */
  readonly baseDir?: string;
  /** Where the text came from, for error messages (a path, or e.g. `secret ns/name-kubeconfig`). */
  readonly source?: string;
  /**
   * false refuses file references (certificate-authority, client-key, tokenFile…). Use it for
   * kubeconfigs from Secrets: a path there would make the controller read its own files (its
   * ServiceAccount token, say) and send them to whatever server the Secret names.
   */
  readonly allowFiles?: boolean;
}

type Fields = Record<string, unknown>;

const isFields = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parses kubeconfig YAML (or JSON) and returns the Connection of the chosen or current context. */
export function parseKubeConfig(text: string, options: KubeConfigOptions = {}): Connection {
  return resolveKubeConfig(text, options).connection;
}

/** Reads a kubeconfig file; relative paths inside it are resolved against its directory. */
export function loadKubeConfigFile(path: string, context?: string): Connection {
  return loadKubeConfigSelection(path, context).connection;
}

/** Like loadKubeConfigFile, with the context, cluster, user and namespace it selected. */
export function loadKubeConfigSelection(path: string, context?: string): KubeConfigSelection {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new KubeConfigError(`kubeconfig ${path}: cannot read the file (${codeOf(error)})`, { cause: error });
  }
  return resolveKubeConfig(text, { baseDir: dirname(resolve(path)), source: path, ...(context ? { context } : {}) });
}

export function resolveKubeConfig(text: string, options: KubeConfigOptions = {}): KubeConfigSelection {
  const where = `kubeconfig${options.source ? ` ${options.source}` : ''}`;
  const fail = (message: string): never => {
    throw new KubeConfigError(`${where}: ${message}`);
  };
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (error) {
    // The YAML parser quotes the offending line, which may hold a credential: keep only its position.
    const at = (error as { linePos?: { line: number }[] }).linePos?.[0]?.line;
    return fail(`not valid YAML${at ? ` (line ${at})` : ''}`);
  }
  if (!isFields(doc)) return fail('not a kubeconfig (expected a mapping with clusters, users and contexts)');

  const contextName = options.context ?? str(doc['current-context']);
  if (!contextName) return fail('no context chosen and current-context is not set');
  const context = named(doc, 'contexts', 'context', contextName) ?? fail(`context "${contextName}" not found${available(doc, 'contexts')}`);
  const clusterName = str(context['cluster']) ?? fail(`context "${contextName}" names no cluster`);
  const userName = str(context['user']) ?? '';
  const cluster = named(doc, 'clusters', 'cluster', clusterName) ??
    fail(`cluster "${clusterName}" (of context "${contextName}") not found${available(doc, 'clusters')}`);
  const user = userName === ''
    ? {}
    : (named(doc, 'users', 'user', userName) ?? fail(`user "${userName}" (of context "${contextName}") not found${available(doc, 'users')}`));

  const files = new FileReader(options.baseDir, fail, options.allowFiles ?? true);
  const connection = {
    ...clusterPart(cluster, `cluster "${clusterName}"`, files, fail),
    ...userPart(user, `user "${userName}"`, files, fail),
  };
  return { connection, context: contextName, cluster: clusterName, user: userName, namespace: str(context['namespace']) };
}

function clusterPart(c: Fields, what: string, files: FileReader, fail: (m: string) => never): Connection {
  const server = str(c['server']) ?? fail(`${what} has no server`);
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    return fail(`${what}: server "${server}" is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') fail(`${what}: server "${server}" must be https:// or http://`);
  if (c['proxy-url'] !== undefined) fail(`${what} sets proxy-url, which is not supported`);
  const caPem = files.pem(c, 'certificate-authority', what);
  const insecure = c['insecure-skip-tls-verify'] === true;
  // client-go refuses the combination too: a CA that is then ignored is almost certainly a mistake.
  if (insecure && caPem) fail(`${what} sets both a certificate authority and insecure-skip-tls-verify`);
  const tlsServerName = str(c['tls-server-name']);
  return {
    server: server.replace(/\/+$/, ''),
    ...(caPem ? { caPem } : {}),
    ...(insecure ? { insecureSkipTLSVerify: true } : {}),
    ...(tlsServerName ? { tlsServerName } : {}),
  };
}

function userPart(u: Fields, what: string, files: FileReader, fail: (m: string) => never): Omit<Connection, 'server'> {
  if (isFields(u['exec'])) {
    const command = str(u['exec']['command']);
    fail(
      `${what} uses an exec credential plugin${command ? ` ("${command}")` : ''}, which is not supported; ` +
        'use a token, tokenFile or client certificate, or build the Transport with Transport.fromKubeConfig() from a @kubernetes/client-node KubeConfig',
    );
  }
  if (isFields(u['auth-provider'])) {
    const name = str(u['auth-provider']['name']);
    fail(
      `${what} uses an auth-provider${name ? ` ("${name}")` : ''}, which is not supported; ` +
        'use a token, tokenFile or client certificate, or build the Transport with Transport.fromKubeConfig() from a @kubernetes/client-node KubeConfig',
    );
  }
  if (u['username'] !== undefined || u['password'] !== undefined) fail(`${what} uses basic auth (username/password), which is not supported`);
  for (const key of ['as', 'as-uid', 'as-groups', 'as-user-extra']) {
    if (u[key] !== undefined) fail(`${what} sets ${key} (impersonation), which is not supported`);
  }
  const clientCertPem = files.pem(u, 'client-certificate', what);
  const clientKeyPem = files.pem(u, 'client-key', what);
  if (clientCertPem && !clientKeyPem) fail(`${what} has a client certificate but no client-key`);
  if (clientKeyPem && !clientCertPem) fail(`${what} has a client key but no client-certificate`);
  const token = str(u['token']);
  const tokenFileField = str(u['tokenFile']);
  const tokenFile = tokenFileField ? files.path(tokenFileField, `${what}: tokenFile`) : undefined;
  // Read it once now so a wrong path fails at startup, not on the first request.
  const fileToken = tokenFile ? files.read(tokenFile, `${what}: tokenFile`).trim() : undefined;
  if (tokenFile && !fileToken) fail(`${what}: tokenFile ${tokenFile} is empty`);
  return {
    ...(clientCertPem ? { clientCertPem } : {}),
    ...(clientKeyPem ? { clientKeyPem } : {}),
    ...(token || fileToken ? { token: token ?? fileToken } : {}),
    ...(tokenFile ? { tokenFile } : {}),
  };
}

/** Reads the files a kubeconfig points at, relative to its directory, with errors naming the field. */
class FileReader {
  readonly #baseDir: string | undefined;
  readonly #fail: (m: string) => never;
  readonly #allowed: boolean;

  constructor(baseDir: string | undefined, fail: (m: string) => never, allowed = true) {
    this.#baseDir = baseDir;
    this.#fail = fail;
    this.#allowed = allowed;
  }

  /** The absolute path of a file the kubeconfig names in `what`. */
  path(p: string, what: string): string {
    if (!this.#allowed) this.#fail(`${what} refers to a file, which is not allowed here (use the inline -data form or a token)`);
    return isAbsolute(p) || !this.#baseDir ? resolve(p) : resolve(this.#baseDir, p);
  }

  read(path: string, what: string): string {
    try {
      return readFileSync(path, 'utf8');
    } catch (error) {
      return this.#fail(`${what} ${path} cannot be read (${codeOf(error)})`);
    }
  }

  /** `<field>-data` (base64, wins as in client-go) or the file named by `<field>`. */
  pem(fields: Fields, field: string, what: string): string | undefined {
    const data = str(fields[`${field}-data`]);
    if (data) {
      const text = Buffer.from(data, 'base64').toString('utf8');
      if (!text.includes('-----BEGIN')) this.#fail(`${what}: ${field}-data is not base64 of a PEM block`);
      return text;
    }
    const file = str(fields[field]);
    return file ? this.read(this.path(file, `${what}: ${field}`), `${what}: ${field}`) : undefined;
  }
}

/** The entry named `name` in one of the kubeconfig's lists, unwrapped (`{name, cluster: {...}}`). */
function named(doc: Fields, list: string, key: string, name: string): Fields | undefined {
  const entries = doc[list];
  if (!Array.isArray(entries)) return undefined;
  const entry = entries.find((e: unknown) => isFields(e) && e['name'] === name) as Fields | undefined;
  if (!entry) return undefined;
  return isFields(entry[key]) ? entry[key] : {};
}

function available(doc: Fields, list: string): string {
  const entries = doc[list];
  const names = Array.isArray(entries) ? entries.map((e: unknown) => (isFields(e) ? str(e['name']) : undefined)).filter((n) => n) : [];
  return names.length ? ` (${list}: ${names.join(', ')})` : ` (the kubeconfig has no ${list})`;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const codeOf = (error: unknown): string => (error as { code?: string }).code ?? (error as Error).message;

/**
 * The kubeconfig file to use when none is given: the first existing file in $KUBECONFIG (several
 * files are not merged, unlike kubectl), else ~/.kube/config if it exists.
 */
export function defaultKubeConfigPath(env: Readonly<Record<string, string | undefined>> = process.env, home: string = homedir()): string | undefined {
  const listed = (env['KUBECONFIG'] ?? '').split(delimiter).filter((p) => p !== '');
  if (listed.length > 0) return listed.find((p) => existsSync(p)) ?? listed[0];
  const fallback = join(home, '.kube', 'config');
  return existsSync(fallback) ? fallback : undefined;
}

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface InClusterOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Where the ServiceAccount's token, ca.crt and namespace are mounted. */
  readonly serviceAccountDir?: string;
}

/**
 * The Connection of a pod's ServiceAccount: the apiserver from KUBERNETES_SERVICE_HOST/PORT, the
 * mounted CA, and the mounted token as a token file, so the transport follows kubelet's rotation of
 * bound tokens (they expire after an hour).
 */
export function inClusterConnection(options: InClusterOptions = {}): Connection {
  const env = options.env ?? process.env;
  const dir = options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  const host = env['KUBERNETES_SERVICE_HOST'];
  const port = env['KUBERNETES_SERVICE_PORT'];
  if (!host || !port) throw new KubeConfigError('in-cluster config: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set (not running in a pod?)');
  const fail = (message: string): never => {
    throw new KubeConfigError(`in-cluster config: ${message}`);
  };
  const files = new FileReader(dir, fail);
  const tokenFile = join(dir, 'token');
  const token = files.read(tokenFile, 'service account token').trim();
  if (!token) fail(`service account token ${tokenFile} is empty`);
  const caPem = files.read(join(dir, 'ca.crt'), 'service account CA');
  // An IPv6 service address needs brackets in a URL.
  const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return { server: `https://${bracketed}:${port}`, caPem, token, tokenFile };
}

/** The pod's namespace from the ServiceAccount mount, or undefined outside a pod. */
export function inClusterNamespace(serviceAccountDir: string = SERVICE_ACCOUNT_DIR): string | undefined {
  try {
    return readFileSync(join(serviceAccountDir, 'namespace'), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
