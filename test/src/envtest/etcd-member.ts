// An etcd member of a workload cluster's own etcd (not the environment's store): what kubeadm runs as
// a static pod on each control-plane Node, so KubeadmControlPlane finds one member per Node, named
// after it, behind the Node's port-forward. Two client listeners: TLS with client-certificate auth
// against the CA the caller gives (KCP's `<cluster>-etcd`), which KCP reaches; plain HTTP on
// loopback, the node-local admin access kubeadm has, used to add members and to wait for health.
// Peers talk plain HTTP on loopback. The process is the environment's, so the watchdog covers it.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { join } from 'node:path';
import { freePort, releasePort } from './ports.ts';
import { ManagedProcess, waitFor } from './processes.ts';

export interface EtcdMemberTls {
  readonly certPem: string;
  readonly keyPem: string;
  /** Client certificates must chain to this (PEM, may hold several CAs). */
  readonly clientCaPem: string;
}

export interface EtcdMemberUrls {
  /** https://127.0.0.1:<port>: TLS, client certificates required. */
  readonly clientUrl: string;
  /** http://127.0.0.1:<port>: no authentication (node-local admin). */
  readonly localUrl: string;
  readonly peerUrl: string;
}

export interface EtcdMember extends EtcdMemberUrls {
  readonly name: string;
  readonly process: ManagedProcess;
  stop(): Promise<void>;
}

export interface EtcdMemberOptions {
  readonly name: string;
  readonly binary: string;
  /** The directory of this member's data and log. */
  readonly dir: string;
  readonly tls: EtcdMemberTls;
  /**
   * The `--initial-cluster` for this member, given its URLs: absent starts a new one-member cluster;
   * present joins an existing one (the caller has added the member under that peer URL).
   */
  readonly join?: (urls: EtcdMemberUrls) => Promise<string>;
  readonly timeoutMs: number;
}

function healthy(url: string): Promise<true | undefined> {
  return new Promise((resolve) => {
    const req = httpGet(`${url}/health`, { timeout: 1000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve(res.statusCode === 200 && body.includes('"true"') ? true : undefined));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
  });
}

export async function startEtcdMember(options: EtcdMemberOptions): Promise<EtcdMember> {
  const [client, local, peer] = [await freePort(), await freePort(), await freePort()];
  const urls: EtcdMemberUrls = {
    clientUrl: `https://127.0.0.1:${client}`,
    localUrl: `http://127.0.0.1:${local}`,
    peerUrl: `http://127.0.0.1:${peer}`,
  };
  const release = () => [client, local, peer].forEach(releasePort);
  // A fresh data directory every start: a Node of the same name provisioned again is a new disk, and
  // etcd refuses to start from the data of a member that was removed from the cluster.
  rmSync(join(options.dir, 'data'), { recursive: true, force: true });
  mkdirSync(options.dir, { recursive: true });
  const file = (name: string, text: string) => {
    const path = join(options.dir, name);
    writeFileSync(path, text, { mode: 0o600 });
    return path;
  };
  let initialCluster = `${options.name}=${urls.peerUrl}`;
  let state = 'new';
  try {
    if (options.join) {
      initialCluster = await options.join(urls);
      state = 'existing';
    }
  } catch (error) {
    release();
    throw error;
  }
  const process = new ManagedProcess({
    name: `etcd (${options.name})`,
    command: options.binary,
    logFile: join(options.dir, 'etcd.log'),
    args: [
      `--name=${options.name}`,
      `--data-dir=${join(options.dir, 'data')}`,
      `--listen-client-urls=${urls.clientUrl},${urls.localUrl}`,
      `--advertise-client-urls=${urls.clientUrl}`,
      `--listen-peer-urls=${urls.peerUrl}`,
      `--initial-advertise-peer-urls=${urls.peerUrl}`,
      `--initial-cluster=${initialCluster}`,
      `--initial-cluster-state=${state}`,
      `--cert-file=${file('server.crt', options.tls.certPem)}`,
      `--key-file=${file('server.key', options.tls.keyPem)}`,
      `--trusted-ca-file=${file('client-ca.crt', options.tls.clientCaPem)}`,
      '--client-cert-auth=true',
      '--unsafe-no-fsync=true',
      '--log-level=warn',
      // Default raft timing: several members on a loaded 2-core machine must not elect in a loop.
      '--heartbeat-interval=100',
      '--election-timeout=1000',
    ],
  });
  try {
    await waitFor(`etcd member ${options.name} /health`, () => healthy(urls.localUrl), { timeoutMs: options.timeoutMs, intervalMs: 100, watch: [process] });
  } catch (error) {
    await process.stop(1000);
    release();
    throw error;
  }
  return {
    name: options.name,
    ...urls,
    process,
    async stop() {
      await process.stop();
      release();
    },
  };
}
