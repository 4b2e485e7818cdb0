// The `ignition` format (optional in CABPK, for Flatcar-style images): an Ignition 2.3.0 JSON config
// with the same files and users as the cloud-config, the commands in /etc/kubeadm.sh run once by a
// kubeadm.service unit, and NTP as /etc/ntp.conf with ntpd enabled. An approximation of CABPK's
// Container Linux Config conversion: `ignition.containerLinuxConfig.additionalConfig`, bootCommands,
// disk setup and mounts are not rendered, and no Jinja expansion happens on such hosts.
import type { Cluster, Machine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { KubeadmConfig } from '@metal3-ts/generated/bootstrap.cluster.x-k8s.io/v1beta1';
import { bootstrapPlan, type PlannedFile } from './plan.ts';

export const IGNITION_VERSION = '2.3.0';
export const KUBEADM_SCRIPT_PATH = '/etc/kubeadm.sh';

type Json = Record<string, unknown>;

/** Text as a data URL: percent-encoded, or base64 when the file says its content already is. */
function source(file: PlannedFile): string {
  if (file.encoding === 'base64' || file.encoding === 'gzip+base64') return `data:;base64,${file.content}`;
  return `data:,${encodeURIComponent(file.content)}`;
}

function storageFile(file: PlannedFile): Json {
  const [user, group] = (file.owner ?? '').split(':');
  const mode = file.permissions ? Number.parseInt(file.permissions, 8) : undefined;
  return {
    filesystem: 'root',
    path: file.path,
    ...(mode !== undefined && Number.isFinite(mode) ? { mode } : {}),
    ...(user ? { user: { name: user } } : {}),
    ...(group ? { group: { name: group } } : {}),
    ...(file.append ? { append: true } : {}),
    contents: { source: source(file), ...(file.encoding?.startsWith('gzip') ? { compression: 'gzip' } : {}) },
  };
}

const KUBEADM_UNIT = [
  '[Unit]',
  'Description=kubeadm',
  '# Run only once: the script is removed after a successful run.',
  `ConditionPathExists=${KUBEADM_SCRIPT_PATH}`,
  'After=network.target',
  '[Service]',
  'Type=oneshot',
  `ExecStart=/bin/bash -c '${KUBEADM_SCRIPT_PATH} && rm -f ${KUBEADM_SCRIPT_PATH}'`,
  '[Install]',
  'WantedBy=multi-user.target',
  '',
].join('\n');

/** Renders `config` for `machine` as Ignition 2.3.0 JSON (pure; secret references resolved first). */
export function renderIgnition(config: Readonly<KubeadmConfig>, machine: Readonly<Machine>, cluster?: Readonly<Cluster>): string {
  const plan = bootstrapPlan(config, machine, cluster);
  const script: PlannedFile = {
    path: KUBEADM_SCRIPT_PATH,
    owner: 'root:root',
    permissions: '0700',
    content: ['#!/bin/bash', 'set -e', ...plan.commands, ''].join('\n'),
  };
  const files = [...plan.files, script];
  const units: Json[] = [{ name: 'kubeadm.service', enabled: true, contents: KUBEADM_UNIT }];
  if (plan.ntp?.enabled && plan.ntp.servers?.length) {
    files.push({ path: '/etc/ntp.conf', permissions: '0644', content: plan.ntp.servers.map((s) => `server ${s} iburst\n`).join('') });
    units.push({ name: 'ntpd.service', enabled: true });
  }
  const users = plan.users.map((u) => ({
    name: u.name,
    ...(u.passwd ? { passwordHash: u.passwd } : {}),
    ...(u.gecos ? { gecos: u.gecos } : {}),
    ...(u.homeDir ? { homeDir: u.homeDir } : {}),
    ...(u.shell ? { shell: u.shell } : {}),
    ...(u.primaryGroup ? { primaryGroup: u.primaryGroup } : {}),
    ...(u.groups ? { groups: u.groups.split(',').map((g) => g.trim()).filter(Boolean) } : {}),
    ...(u.sshAuthorizedKeys?.length ? { sshAuthorizedKeys: [...u.sshAuthorizedKeys] } : {}),
  }));
  return JSON.stringify({
    ignition: { version: IGNITION_VERSION },
    passwd: { users },
    storage: { files: files.map(storageFile) },
    systemd: { units },
  });
}
