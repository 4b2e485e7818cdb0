// One kube-apiserver on 127.0.0.1, using the environment's shared etcd under its own prefix.
// Used for the management cluster and for every workload cluster. It can be restarted in place (same
// port, certificates and tokens; its objects stay in etcd), as a control-plane node reboot would:
// clients keep their kubeconfigs and only see the outage.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ProcessExitError } from './errors.ts';
import { isNotFound } from './http.ts';
import { type Connection, type Identity, makeConnection } from './kubeconfig.ts';
import { type Authorities, clientCertificate, newToken, servingCertificate, tokenFile } from './pki.ts';
import { freePort, releasePort } from './ports.ts';
import { ManagedProcess, waitFor } from './processes.ts';

export type AuthorizationMode = 'RBAC' | 'AlwaysAllow';

export interface ApiServerOptions {
  /** Cluster name in kubeconfigs and logs ("envtest" for management, the workload cluster's name otherwise). */
  readonly name: string;
  readonly binary: string;
  readonly etcdUrl: string;
  /** Key prefix in etcd; distinct per apiserver so their object spaces never meet. */
  readonly etcdPrefix: string;
  readonly authorities: Authorities;
  /** A directory of its own (certificates, token file, log). */
  readonly dir: string;
  readonly authorization: AuthorizationMode;
  readonly timeoutMs: number;
  /** Only one apiserver per etcd needs to compact it (compaction is keyspace-wide). */
  readonly compaction: boolean;
  readonly extraArgs?: readonly string[];
}

export interface ApiServer {
  readonly name: string;
  readonly server: string;
  /** The running process (a new one after restart()). */
  readonly process: ManagedProcess;
  /** A user in system:masters (static token): allowed everything, even before RBAC bootstrap. */
  readonly admin: Connection;
  /**
   * Credentials for any user name and groups, as a client certificate signed by the environment's
   * client CA. No RBAC is granted: tests bind the Roles they mean to prove.
   */
  user(name: string, groups?: readonly string[]): Connection;
  /**
   * Stops the process (SIGTERM), keeps it down for `downMs`, then starts it again on the same port with
   * the same certificates and waits until it is ready. The port stays reserved in between.
   */
  restart(downMs: number): Promise<void>;
  stop(): Promise<void>;
}

/** The static-token admin every apiserver of the environment knows (workload kubeconfigs name it too). */
export const ADMIN: Omit<Identity, 'token'> = { user: 'envtest-admin', groups: ['system:masters'] };

function apiserverArgs(o: ApiServerOptions, port: number, files: Record<string, string>): string[] {
  const server = `https://127.0.0.1:${port}`;
  return [
    `--etcd-servers=${o.etcdUrl}`,
    `--etcd-prefix=${o.etcdPrefix}`,
    `--etcd-compaction-interval=${o.compaction ? '5m' : '0'}`,
    // Everything on loopback. The advertise address must be given: the default is the default-route
    // interface (and fails without one); a loopback one is then rejected by the endpoint reconciler
    // of the `kubernetes` Service, which has nothing to reconcile here anyway.
    '--bind-address=127.0.0.1',
    `--secure-port=${port}`,
    '--advertise-address=127.0.0.1',
    '--endpoint-reconciler-type=none',
    `--cert-dir=${files['certDir']}`,
    `--tls-cert-file=${files['servingCert']}`,
    `--tls-private-key-file=${files['servingKey']}`,
    `--client-ca-file=${files['clientCa']}`,
    `--token-auth-file=${files['tokens']}`,
    `--service-account-issuer=${server}`,
    `--service-account-key-file=${files['saPublic']}`,
    `--service-account-signing-key-file=${files['saPrivate']}`,
    '--service-cluster-ip-range=10.0.0.0/24',
    `--authorization-mode=${o.authorization}`,
    // No controller-manager: no default ServiceAccount (pods would be refused) and nobody to lift the
    // not-ready taint that TaintNodesByCondition puts on every Node created through the API.
    '--disable-admission-plugins=ServiceAccount,TaintNodesByCondition',
    '--allow-privileged=true',
    '--profiling=false',
    ...(o.extraArgs ?? []),
  ];
}

export async function startApiServer(o: ApiServerOptions): Promise<ApiServer> {
  mkdirSync(o.dir, { recursive: true });
  const serving = servingCertificate(o.authorities);
  const adminIdentity: Identity = { ...ADMIN, token: newToken() };
  const files = {
    certDir: join(o.dir, 'cert-dir'),
    servingCert: join(o.dir, 'serving.crt'),
    servingKey: join(o.dir, 'serving.key'),
    clientCa: join(o.dir, 'client-ca.crt'),
    tokens: join(o.dir, 'tokens.csv'),
    saPublic: join(o.dir, 'sa.pub'),
    saPrivate: join(o.dir, 'sa.key'),
  };
  mkdirSync(files.certDir, { recursive: true });
  // The chain (leaf + CA) lets clients that only trust the system store still see the issuer.
  writeFileSync(files.servingCert, serving.certPem + o.authorities.servingCa.certPem);
  writeFileSync(files.servingKey, serving.keyPem, { mode: 0o600 });
  writeFileSync(files.clientCa, o.authorities.clientCa.certPem);
  writeFileSync(files.saPublic, o.authorities.serviceAccountKey.publicKeyPem);
  writeFileSync(files.saPrivate, o.authorities.serviceAccountKey.keyPem, { mode: 0o600 });
  writeFileSync(files.tokens, tokenFile([{ token: adminIdentity.token!, user: ADMIN.user, uid: 'envtest-admin', groups: ADMIN.groups }]), {
    mode: 0o600,
  });

  const caPem = o.authorities.servingCa.certPem;
  /** Starts the process on `port` and waits until it serves; stops it again on failure. */
  const launch = async (port: number, admin: Connection): Promise<ManagedProcess> => {
    const process = new ManagedProcess({
      name: `kube-apiserver (${o.name})`,
      command: o.binary,
      args: apiserverArgs(o, port, files),
      logFile: join(o.dir, 'kube-apiserver.log'),
    });
    try {
      await waitReady(admin, process, o.timeoutMs);
      return process;
    } catch (error) {
      await process.stop(1000);
      throw error;
    }
  };
  for (let attempt = 1;; attempt++) {
    const port = await freePort();
    const server = `https://127.0.0.1:${port}`;
    const admin = makeConnection({ cluster: o.name, server, caPem, identity: adminIdentity, path: join(o.dir, 'admin.kubeconfig') });
    let process: ManagedProcess;
    try {
      process = await launch(port, admin);
    } catch (error) {
      admin.client.close();
      if (error instanceof ProcessExitError && error.portRace && attempt < 5) continue;
      throw error;
    }
    let users = 0;
    return {
      name: o.name,
      server,
      get process() {
        return process;
      },
      admin,
      user(name, groups = []) {
        const cert = clientCertificate(o.authorities, name, groups);
        const safe = name.replace(/[^A-Za-z0-9._-]/g, '_');
        return makeConnection({
          cluster: o.name,
          server,
          caPem,
          identity: { user: name, groups, certPem: cert.certPem, keyPem: cert.keyPem },
          path: join(o.dir, `user-${++users}-${safe}.kubeconfig`),
        });
      },
      async restart(downMs) {
        await process.stop();
        await sleep(downMs);
        // The port was never released, so this process hands it to nobody else; another program can
        // still take it meanwhile, which shows as a port race and is retried for a few seconds.
        for (let tries = 1;; tries++) {
          try {
            process = await launch(port, admin);
            return;
          } catch (error) {
            if (!(error instanceof ProcessExitError && error.portRace && tries < 10)) throw error;
            await sleep(500);
          }
        }
      },
      async stop() {
        admin.client.close();
        await process.stop();
        releasePort(port);
      },
    };
  }
}

/** Ready: /readyz says ok (with credentials) and the `default` namespace exists. */
async function waitReady(admin: Connection, process: ManagedProcess, timeoutMs: number): Promise<void> {
  // /readyz with credentials: unauthenticated probes see 401/403 until RBAC bootstrap (and
  // forever under AlwaysAllow, which turns anonymous auth off).
  await waitFor(
    'kube-apiserver /readyz',
    async () => ((await admin.client.get<string>('/readyz', { raw: true, timeoutMs: 2000 })) === 'ok' ? true : undefined),
    {
      timeoutMs,
      intervalMs: 100,
      watch: [process],
    },
  );
  // The `default` namespace is created by a post-start hook that /readyz does not wait for.
  await waitFor(
    'namespace default',
    async () => {
      try {
        await admin.client.get('/api/v1/namespaces/default');
        return true;
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    },
    { timeoutMs, intervalMs: 50, watch: [process] },
  );
}
