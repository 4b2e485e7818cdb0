// One etcd for the whole environment: the management apiserver and every workload apiserver keep
// their objects in it under different --etcd-prefix values. It can be restarted in place (same ports,
// same data directory), so an outage test loses no object.
import { mkdirSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ProcessExitError } from './errors.ts';
import { freePort, releasePort } from './ports.ts';
import { ManagedProcess, waitFor } from './processes.ts';

export interface Etcd {
  /** http://127.0.0.1:<port>, for --etcd-servers. */
  readonly url: string;
  /** The running process (a new one after restart()). */
  readonly process: ManagedProcess;
  /** Stops etcd (SIGTERM), keeps it down for `downMs`, starts it again on the same ports and data. */
  restart(downMs: number): Promise<void>;
  stop(): Promise<void>;
}

function health(url: string): Promise<true | undefined> {
  return new Promise((resolve, reject) => {
    const req = httpGet(`${url}/health`, { timeout: 1000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve(res.statusCode === 200 && body.includes('"true"') ? true : undefined));
    });
    req.on('timeout', () => req.destroy(new Error('etcd /health timed out')));
    req.on('error', reject);
  });
}

export interface EtcdOptions {
  readonly binary: string;
  readonly dir: string;
  readonly timeoutMs: number;
  /** Chooses ports (default freePort); tests pass a picker that hands out a taken port first. */
  readonly pickPort?: () => Promise<number>;
  /** Called when a start attempt lost a port race and is retried. */
  readonly onRetry?: (error: ProcessExitError) => void;
}

export async function startEtcd(options: EtcdOptions): Promise<Etcd> {
  const pick = options.pickPort ?? freePort;
  // A port taken between probing and binding makes etcd exit with "address already in use":
  // retry with fresh ports, like envtest retries the whole control plane.
  for (let attempt = 1;; attempt++) {
    const clientPort = await pick();
    const peerPort = await pick();
    const url = `http://127.0.0.1:${clientPort}`;
    const peer = `http://127.0.0.1:${peerPort}`;
    const dataDir = join(options.dir, `etcd-data-${attempt}`);
    mkdirSync(dataDir, { recursive: true });
    const launch = () => {
      const child = new ManagedProcess({ name: 'etcd', command: options.binary, logFile: join(options.dir, 'etcd.log'), args: etcdArgs(dataDir, url, peer) });
      return waitFor('etcd /health', () => health(url), { timeoutMs: options.timeoutMs, intervalMs: 50, watch: [child] }).then(
        () => child,
        async (error: unknown) => {
          await child.stop(1000);
          throw error;
        },
      );
    };
    try {
      let process = await launch();
      return {
        url,
        get process() {
          return process;
        },
        async restart(downMs) {
          await process.stop();
          await sleep(downMs);
          for (let tries = 1;; tries++) {
            try {
              process = await launch();
              return;
            } catch (error) {
              if (!(error instanceof ProcessExitError && error.portRace && tries < 10)) throw error;
              await sleep(500);
            }
          }
        },
        stop: async () => {
          await process.stop();
          releasePort(clientPort);
          releasePort(peerPort);
        },
      };
    } catch (error) {
      if (error instanceof ProcessExitError && error.portRace && attempt < 5) {
        options.onRetry?.(error);
        continue;
      }
      throw error;
    }
  }
}

function etcdArgs(dataDir: string, url: string, peer: string): string[] {
  return [
    '--name=envtest',
    `--data-dir=${dataDir}`,
    `--listen-client-urls=${url}`,
    `--advertise-client-urls=${url}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=envtest=${peer}`,
    // Test data is thrown away: skipping fsync makes every write a memory copy (a restart after a
    // clean SIGTERM still finds everything: the page cache holds it).
    '--unsafe-no-fsync=true',
    '--log-level=warn',
    // Compaction is the apiservers' job (--etcd-compaction-interval); no periodic snapshots needed.
    '--snapshot-count=100000',
    // A single member elects itself; short ticks make that take milliseconds instead of ~1 s.
    '--heartbeat-interval=10',
    '--election-timeout=100',
  ];
}
