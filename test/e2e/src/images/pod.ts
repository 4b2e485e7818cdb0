// Runs an unpacked controller image the way a kubelet runs a container, without Docker (root only):
// a private mount and PID namespace (unshare), the root filesystem bind-mounted read-only, /dev/null
// and /dev/urandom bound in, /proc mounted, the ServiceAccount volume (token, ca.crt, namespace) bound
// read-only at /var/run/secrets/kubernetes.io/serviceaccount unless the Pod mounts no token, a Secret
// volume read-only where the Deployment mounts one (the conversion webhook's certificate), then chroot
// as the image's numeric user with no_new_privs and an environment holding only the image's Env and
// the KUBERNETES_SERVICE_* variables. The container's network is the host's (no network namespace), so
// the probe and metrics ports are chosen by the caller.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { ControllerProcess } from '@metal3-ts/test/harness/controller-process';
import type { ImageConfig } from '../../../../scripts/images/unpack.ts';

export const SERVICE_ACCOUNT_MOUNT = 'var/run/secrets/kubernetes.io/serviceaccount';
const DEVICES = ['null', 'urandom', 'random'] as const;

/** Why the sandbox cannot run here, or undefined when it can (root, unshare, chroot, setpriv). */
export function sandboxUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'running an image as a kubelet would needs root (mount and PID namespaces, chroot)';
  for (const tool of ['unshare', 'chroot', 'setpriv', 'mount']) {
    if (!toolPath(tool)) return `${tool} (util-linux/coreutils) is not installed`;
  }
  return undefined;
}

/** The absolute path of a host tool (`env -i` leaves no PATH to find it by). */
function toolPath(tool: string): string | undefined {
  try {
    return execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8', env: { PATH: HOST_PATH } }).trim() || undefined;
  } catch {
    return undefined;
  }
}

const HOST_PATH = '/usr/sbin:/usr/bin:/sbin:/bin';

export interface ServiceAccountVolume {
  readonly token: string;
  readonly caPem: string;
  readonly namespace: string;
}

export interface PodOptions {
  /** The image's root filesystem, unpacked (mount points are added to it, as a runtime does). */
  readonly rootfs: string;
  readonly config: ImageConfig;
  /** The container's args (appended to the image's Entrypoint). */
  readonly args: readonly string[];
  /** Absent: no ServiceAccount volume (a Pod with `automountServiceAccountToken: false`). */
  readonly serviceAccount: ServiceAccountVolume | undefined;
  /** `https://127.0.0.1:6443`: becomes KUBERNETES_SERVICE_HOST and _PORT. */
  readonly apiserver: string;
  /** A directory for the ServiceAccount volume and the sandbox script. */
  readonly workDir: string;
  /** A Secret volume: these files, bound read-only at `mountPath` (the conversion webhook's certificate). */
  readonly secretVolume?: { readonly mountPath: string; readonly files: Readonly<Record<string, string>> };
}

const SCRIPT = `set -eu
root=$1; volume=$2; secret=$3; secretAt=$4; shift 4
mount --bind "$root" "$root"
for dev in ${DEVICES.join(' ')}; do mount --bind "/dev/$dev" "$root/dev/$dev"; done
mount -t proc -o nosuid,nodev,noexec proc "$root/proc"
if [ "$volume" != - ]; then mount --bind "$volume" "$root/${SERVICE_ACCOUNT_MOUNT}"; mount -o remount,bind,ro "$root/${SERVICE_ACCOUNT_MOUNT}"; fi
if [ "$secret" != - ]; then mount --bind "$secret" "$root/$secretAt"; mount -o remount,bind,ro "$root/$secretAt"; fi
mount -o remount,bind,ro "$root"
exec "$@"
`;

/** The controller's process inside the sandbox; kill() signals it (PID 1 of its namespace). */
export class ImagePod extends ControllerProcess {
  constructor(options: PodOptions) {
    const { rootfs, config, workDir } = options;
    const entrypoint = config.config.Entrypoint ?? [];
    if (entrypoint.length === 0) throw new Error('the image has no Entrypoint');
    const user = config.config.User ?? '';
    if (!/^\d+:\d+$/.test(user) || user.startsWith('0:')) throw new Error(`the image's User must be a numeric non-root uid:gid, got "${user}"`);
    for (const dev of DEVICES) {
      if (!existsSync(join(rootfs, 'dev', dev))) writeFileSync(join(rootfs, 'dev', dev), '');
    }
    let volume = '-';
    const account = options.serviceAccount;
    if (account) {
      mkdirSync(join(rootfs, SERVICE_ACCOUNT_MOUNT), { recursive: true });
      volume = join(workDir, 'serviceaccount');
      mkdirSync(volume, { recursive: true });
      chmodSync(volume, 0o755);
      for (const [file, text] of [['token', account.token], ['ca.crt', account.caPem], ['namespace', account.namespace]] as const) {
        writeFileSync(join(volume, file), text, { mode: 0o644 });
      }
    }
    let secret = ['-', '-'];
    if (options.secretVolume) {
      const dir = join(workDir, 'secret');
      mkdirSync(dir, { recursive: true });
      chmodSync(dir, 0o755);
      for (const [file, text] of Object.entries(options.secretVolume.files)) writeFileSync(join(dir, file), text, { mode: 0o644 });
      const at = options.secretVolume.mountPath.replace(/^\/+/, '');
      mkdirSync(join(rootfs, at), { recursive: true });
      secret = [dir, at];
    }
    const script = join(workDir, 'sandbox.sh');
    writeFileSync(script, SCRIPT);
    const url = new URL(options.apiserver);
    const env = [...(config.config.Env ?? []), `KUBERNETES_SERVICE_HOST=${url.hostname}`, `KUBERNETES_SERVICE_PORT=${url.port || '443'}`];
    const [uid, gid] = user.split(':') as [string, string];
    super('node', entrypoint[entrypoint.length - 1] ?? '', options.args, {
      command: 'unshare',
      args: [
        '--mount',
        '--pid',
        '--fork',
        '--kill-child=SIGKILL',
        '--',
        'sh',
        script,
        rootfs,
        volume,
        ...secret,
        'setpriv',
        '--no-new-privs',
        '--',
        'env',
        '-i',
        ...env,
        toolPath('chroot') ?? 'chroot',
        `--userspec=${uid}:${gid}`,
        `--groups=${gid}`,
        rootfs,
        ...entrypoint,
        ...options.args,
      ],
      env: { PATH: HOST_PATH },
    });
  }

  /** The container's init process as the host sees it (unshare's only child), once started. */
  containerPid(): number | undefined {
    const pid = this.child.pid;
    if (pid === undefined) return undefined;
    try {
      const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
      return children.length === 1 ? Number(children[0]) : undefined;
    } catch {
      return undefined;
    }
  }

  /** A kubelet signals the container's process, not a wrapper: unshare does not forward signals. */
  override kill(signal: NodeJS.Signals): void {
    const pid = this.containerPid();
    if (signal !== 'SIGKILL' && pid !== undefined) process.kill(pid, signal);
    else this.child.kill('SIGKILL');
  }
}
