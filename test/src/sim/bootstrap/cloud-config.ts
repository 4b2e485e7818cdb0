// The cloud-config CABPK writes into a machine's bootstrap Secret (format `cloud-config`, the
// default): the `## template: jinja` header that lets cloud-init expand `{{ ds.meta_data.* }}`
// (Metal3 puts `metal3.io/uuid={{ ds.meta_data.uuid }}` in the kubelet's node-labels that way),
// write_files, runcmd, bootcmd, ntp, users, disk_setup, fs_setup and mounts.
import type { Cluster, Machine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { KubeadmConfig, KubeadmConfigSpecDiskSetup, KubeadmConfigSpecUsers } from '@metal3-ts/generated/bootstrap.cluster.x-k8s.io/v1beta1';
import { stringify } from 'yaml';
import { bootstrapPlan, type PlannedFile } from './plan.ts';

export const CLOUD_CONFIG_HEADER = '## template: jinja\n#cloud-config\n';

type Json = Record<string, unknown>;

function writeFile(file: PlannedFile): Json {
  return {
    path: file.path,
    ...(file.encoding ? { encoding: file.encoding } : {}),
    ...(file.owner ? { owner: file.owner } : {}),
    ...(file.permissions ? { permissions: file.permissions } : {}),
    ...(file.append ? { append: true } : {}),
    content: file.content,
  };
}

/** cloud-init's user keys for the KubeadmConfig's camelCase ones. */
function user(u: Omit<KubeadmConfigSpecUsers, 'passwdFrom'>): Json {
  const out: Json = { name: u.name };
  if (u.passwd) out['passwd'] = u.passwd;
  if (u.gecos) out['gecos'] = u.gecos;
  if (u.groups) out['groups'] = u.groups;
  if (u.homeDir) out['homedir'] = u.homeDir;
  if (u.inactive) out['inactive'] = true;
  if (u.lockPassword !== undefined) out['lock_passwd'] = u.lockPassword;
  if (u.shell) out['shell'] = u.shell;
  if (u.primaryGroup) out['primary_group'] = u.primaryGroup;
  if (u.sudo) out['sudo'] = u.sudo;
  if (u.sshAuthorizedKeys?.length) out['ssh_authorized_keys'] = [...u.sshAuthorizedKeys];
  return out;
}

function diskSetup(setup: KubeadmConfigSpecDiskSetup): Json {
  const out: Json = {};
  if (setup.partitions?.length) {
    out['disk_setup'] = Object.fromEntries(
      setup.partitions.map((
        p,
      ) => [p.device, { table_type: p.tableType ?? 'gpt', layout: p.layout, ...(p.overwrite !== undefined ? { overwrite: p.overwrite } : {}) }]),
    );
  }
  if (setup.filesystems?.length) {
    out['fs_setup'] = setup.filesystems.map((f) => ({
      ...(f.label ? { label: f.label } : {}),
      filesystem: f.filesystem,
      device: f.device,
      ...(f.partition ? { partition: f.partition } : {}),
      ...(f.overwrite !== undefined ? { overwrite: f.overwrite } : {}),
      ...(f.replaceFS ? { replace_fs: f.replaceFS } : {}),
      ...(f.extraOpts?.length ? { extra_opts: [...f.extraOpts] } : {}),
    }));
  }
  return out;
}

/**
 * Renders `config` for `machine` as cloud-config. Pure: secret references must be resolved first
 * (see plan.ts). The result parses as YAML; the kubeadm configuration is the `content` of the
 * write_files entry at /run/kubeadm/kubeadm.yaml (init) or /run/kubeadm/kubeadm-join-config.yaml.
 */
export function renderCloudConfig(config: Readonly<KubeadmConfig>, machine: Readonly<Machine>, cluster?: Readonly<Cluster>): string {
  const plan = bootstrapPlan(config, machine, cluster);
  const doc: Json = { write_files: plan.files.map(writeFile), runcmd: [...plan.commands] };
  if (plan.bootCommands.length > 0) doc['bootcmd'] = [...plan.bootCommands];
  if (plan.ntp) doc['ntp'] = { ...(plan.ntp.enabled ? { enabled: true } : {}), servers: [...(plan.ntp.servers ?? [])] };
  if (plan.users.length > 0) doc['users'] = plan.users.map(user);
  if (plan.diskSetup) Object.assign(doc, diskSetup(plan.diskSetup));
  if (plan.mounts?.length) doc['mounts'] = plan.mounts.map((m) => [...m]);
  return `${CLOUD_CONFIG_HEADER}${stringify(doc, { lineWidth: 0 })}`;
}
