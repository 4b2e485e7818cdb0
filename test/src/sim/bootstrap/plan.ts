// What a machine's bootstrap data says, before it is written as cloud-config or Ignition: the files
// (the config's own, then the kubeadm config file and the /run/cluster-api placeholder), the commands
// (pre-kubeadm, `kubeadm init|join` with the sentinel file, post-kubeadm), users, NTP, disks, mounts.
import type { Cluster, Machine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type {
  KubeadmConfig,
  KubeadmConfigSpecDiskSetup,
  KubeadmConfigSpecFiles,
  KubeadmConfigSpecNtp,
  KubeadmConfigSpecUsers,
} from '@metal3-ts/generated/bootstrap.cluster.x-k8s.io/v1beta1';
import { type BootstrapMode, bootstrapMode, bootstrapTokenFor, kubeadmConfigFile } from './kubeadm-config.ts';

export const KUBEADM_INIT_CONFIG_PATH = '/run/kubeadm/kubeadm.yaml';
export const KUBEADM_JOIN_CONFIG_PATH = '/run/kubeadm/kubeadm-join-config.yaml';
export const PLACEHOLDER_PATH = '/run/cluster-api/placeholder';
/** Written when kubeadm succeeded; CAPI's node bootstrap checks look for it. */
export const SENTINEL_COMMAND = 'echo success > /run/cluster-api/bootstrap-success.complete';

/** A secret reference (`contentFrom`, `passwdFrom`) was not resolved before rendering. */
export class UnresolvedSecretReferenceError extends Error {
  override name = 'UnresolvedSecretReferenceError';
}

export interface PlannedFile {
  readonly path: string;
  readonly content: string;
  readonly owner?: string;
  readonly permissions?: string;
  readonly encoding?: 'base64' | 'gzip' | 'gzip+base64';
  readonly append?: boolean;
}

export interface BootstrapPlan {
  readonly mode: BootstrapMode;
  readonly files: readonly PlannedFile[];
  /** Run once, in order: pre-kubeadm commands, kubeadm, post-kubeadm commands. */
  readonly commands: readonly string[];
  readonly bootCommands: readonly string[];
  readonly users: readonly KubeadmConfigSpecUsers[];
  readonly ntp?: KubeadmConfigSpecNtp;
  readonly diskSetup?: KubeadmConfigSpecDiskSetup;
  readonly mounts?: readonly (readonly string[])[];
}

function plannedFile(file: KubeadmConfigSpecFiles): PlannedFile {
  if (file.content === undefined && file.contentFrom) {
    throw new UnresolvedSecretReferenceError(`file ${file.path}: content from Secret ${file.contentFrom.secret.name} was not resolved`);
  }
  return {
    path: file.path,
    content: file.content ?? '',
    ...(file.owner ? { owner: file.owner } : {}),
    ...(file.permissions ? { permissions: file.permissions } : {}),
    ...(file.encoding ? { encoding: file.encoding } : {}),
    ...(file.append ? { append: true } : {}),
  };
}

function kubeadmCommand(mode: BootstrapMode, verbosity: number | undefined): string {
  const verbose = verbosity !== undefined ? ` --v ${verbosity}` : '';
  const command = mode === 'init' ? `kubeadm init --config ${KUBEADM_INIT_CONFIG_PATH}` : `kubeadm join --config ${KUBEADM_JOIN_CONFIG_PATH}`;
  return `${command}${verbose} && ${SENTINEL_COMMAND}`;
}

/**
 * The bootstrap plan of `config` for `machine` (its control-plane label and Kubernetes version
 * matter) in `cluster` (endpoint and networking). Secret references must already be resolved into
 * `content` / `passwd`, else UnresolvedSecretReferenceError.
 */
export function bootstrapPlan(config: Readonly<KubeadmConfig>, machine: Readonly<Machine>, cluster?: Readonly<Cluster>): BootstrapPlan {
  const spec = config.spec ?? {};
  const mode = bootstrapMode(spec, machine);
  const token = bootstrapTokenFor(config.metadata.uid ?? `${config.metadata.namespace ?? ''}/${config.metadata.name ?? ''}`);
  const kubeadmFile: PlannedFile = {
    path: mode === 'init' ? KUBEADM_INIT_CONFIG_PATH : KUBEADM_JOIN_CONFIG_PATH,
    owner: 'root:root',
    permissions: '0640',
    content: kubeadmConfigFile(spec, machine, cluster, mode, token),
  };
  const placeholder: PlannedFile = {
    path: PLACEHOLDER_PATH,
    owner: 'root:root',
    permissions: '0640',
    content:
      'This placeholder file is used to create the /run/cluster-api sub directory in a way that is compatible with both Linux and Windows (mkdir -p /run/cluster-api does not work with Windows)',
  };
  const users = (spec.users ?? []).map((user) => {
    if (user.passwd === undefined && user.passwdFrom) {
      throw new UnresolvedSecretReferenceError(`user ${user.name}: password from Secret ${user.passwdFrom.secret.name} was not resolved`);
    }
    const { passwdFrom: _from, ...rest } = user;
    return rest;
  });
  return {
    mode,
    files: [...(spec.files ?? []).map(plannedFile), kubeadmFile, placeholder],
    commands: [...(spec.preKubeadmCommands ?? []), kubeadmCommand(mode, spec.verbosity), ...(spec.postKubeadmCommands ?? [])],
    bootCommands: spec.bootCommands ?? [],
    users,
    ...(spec.ntp ? { ntp: spec.ntp } : {}),
    ...(spec.diskSetup ? { diskSetup: spec.diskSetup } : {}),
    ...(spec.mounts ? { mounts: spec.mounts } : {}),
  };
}
