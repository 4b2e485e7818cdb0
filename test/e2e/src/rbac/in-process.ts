// A controller of this repository run in the test process the way runMain runs it (client, shared
// informers with the readiness check, event recorder, manager serving /readyz and /metrics), but as a
// user bound to a ClusterRole the test can change while it runs: the RBAC suites take one verb away,
// look at what the controller shows, and give it back.
import type { Client, ResourceDescriptor } from '@metal3-ts/generated';
import { CONTROLLER_NAME as CLUSTER, metal3ClusterController } from '@metal3-ts/controller-cluster/controller';
import { MIGRATED_KINDS as CLUSTER_KINDS } from '@metal3-ts/controller-cluster/entry';
import { dataControllers } from '@metal3-ts/controller-data/controller';
import { MIGRATED_KINDS as DATA_KINDS } from '@metal3-ts/controller-data/entry';
import { DATA_CONTROLLER_NAME as DATA } from '@metal3-ts/controller-data/names';
import { dataClaimController } from '@metal3-ts/controller-dataclaim/controller';
import { MIGRATED_KINDS as DATACLAIM_KINDS } from '@metal3-ts/controller-dataclaim/entry';
import { CONTROLLER_NAME as DATACLAIM } from '@metal3-ts/controller-dataclaim/names';
import { labelSyncController } from '@metal3-ts/controller-labelsync/controller';
import { metal3MachineController } from '@metal3-ts/controller-machine/controller';
import { MIGRATED_KINDS as MACHINE_KINDS } from '@metal3-ts/controller-machine/entry';
import { CONTROLLER_NAME as MACHINE } from '@metal3-ts/controller-machine/names';
import { remediationController } from '@metal3-ts/controller-remediation/controller';
import { MIGRATED_KINDS as REMEDIATION_KINDS } from '@metal3-ts/controller-remediation/entry';
import { CONTROLLER_NAME as REMEDIATION } from '@metal3-ts/controller-remediation/names';
import { templateController } from '@metal3-ts/controller-template/controller';
import { MIGRATED_KINDS as TEMPLATE_KINDS } from '@metal3-ts/controller-template/entry';
import { CONTROLLER_NAME as TEMPLATE } from '@metal3-ts/controller-template/names';
import { InformerFactory } from '@metal3-ts/shared/cache/informer-factory';
import { WriteThroughClient } from '@metal3-ts/shared/cache/write-through';
import { newClient } from '@metal3-ts/shared/client/client';
import { loadKubeConfigFile } from '@metal3-ts/shared/client/kubeconfig';
import { RequestCounter } from '@metal3-ts/shared/client/metrics';
import type { Controller } from '@metal3-ts/shared/controller/controller';
import { EventRecorder } from '@metal3-ts/shared/events/recorder';
import { newLogger } from '@metal3-ts/shared/log/logger';
import { Manager } from '@metal3-ts/shared/manager/manager';
import { Registry } from '@metal3-ts/shared/metrics/registry';
import { storageMigrationController } from '@metal3-ts/shared/storage/controller';
import { ClusterCache } from '@metal3-ts/shared/workload/cluster-cache';
import type { TestEnv } from '@metal3-ts/test/envtest/env';
import type { SceneClock } from './clock.ts';
import { clusterRoleOf, type ControllerName, type PolicyRule } from './verbs.ts';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const FIELD_MANAGER = 'metal3-ts-rbac-suite';

/** A user bound to its own copy of a controller's ClusterRole, whose rules the test sets. */
export interface BoundUser {
  readonly name: string;
  /** Replaces the rules of the user's ClusterRole (server-side apply; effective within moments). */
  setRules(rules: readonly PolicyRule[]): Promise<void>;
  /** Back to the manifest's rules. */
  restore(): Promise<void>;
}

export async function bindUser(env: TestEnv, controller: ControllerName, name: string, rules?: readonly PolicyRule[]): Promise<BoundUser> {
  const role = clusterRoleOf(controller);
  const roleName = `${role.metadata.name}-${name}`;
  const setRules = async (next: readonly PolicyRule[]) => {
    await env.admin.client.apply(`${RBAC}/clusterroles/${roleName}`, { ...role, metadata: { ...role.metadata, name: roleName }, rules: next }, FIELD_MANAGER);
  };
  await setRules(rules ?? role.rules);
  await env.admin.client.apply(
    `${RBAC}/clusterrolebindings/${roleName}`,
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: roleName },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name }],
    },
    FIELD_MANAGER,
  );
  return { name, setRules, restore: () => setRules(role.rules) };
}

export interface InProcessController {
  /** The user's client (what the controller writes through). */
  readonly client: Client;
  readonly registry: Registry;
  /** Every request the controller made, by verb, resource and code. */
  readonly counter: RequestCounter;
  /** GET /readyz?verbose on the manager's probe server. */
  readyz(): Promise<{ status: number; body: string }>;
  /** Error-level log lines so far. */
  errors(): readonly string[];
  stop(): Promise<void>;
}

/** What every controller of a process is built from. */
type ControllerDeps = { client: Client; informers: InformerFactory; registry: Registry; events: EventRecorder; log: ReturnType<typeof newLogger> };

/** Controllers of `name` built as their main.ts builds them: its own, then its storage migration (entry.ts). */
function build(
  name: ControllerName,
  deps: ControllerDeps,
  workload: ClusterCache,
  clock: SceneClock | undefined,
): Controller[] {
  const migration = MIGRATIONS[name];
  return [...own(name, deps, workload, clock), ...(migration ? [storageMigrationController(migration[0], migration[1], deps)] : [])];
}

/** Each controller's storage migration: its controller name and the kinds its entry migrates (labelsync writes none). */
export const MIGRATIONS: Partial<Record<ControllerName, readonly [string, readonly ResourceDescriptor[]]>> = {
  cluster: [CLUSTER, CLUSTER_KINDS],
  machine: [MACHINE, MACHINE_KINDS],
  template: [TEMPLATE, TEMPLATE_KINDS],
  data: [DATA, DATA_KINDS],
  dataclaim: [DATACLAIM, DATACLAIM_KINDS],
  remediation: [REMEDIATION, REMEDIATION_KINDS],
};

function own(
  name: ControllerName,
  deps: ControllerDeps,
  workload: ClusterCache,
  clock: SceneClock | undefined,
): Controller[] {
  const common = { ...deps };
  switch (name) {
    case 'cluster':
      return [metal3ClusterController({ ...common, config: { concurrency: 2 } })];
    case 'machine':
      return [metal3MachineController({ ...common, workloadClient: (cluster) => workload.get(cluster), config: { concurrency: 2, nodePollMs: 200 } })];
    case 'template':
      return [templateController({ ...common, config: { concurrency: 2 } })];
    case 'data':
      return dataControllers({ ...common, config: { ipam: { metal3: true, capi: true } } });
    case 'dataclaim':
      return [dataClaimController({ ...common, config: { concurrency: 2 } })];
    case 'labelsync':
      return [labelSyncController({ ...common, workloadClient: (cluster) => workload.get(cluster), config: { concurrency: 2 } })];
    case 'remediation':
      // The classic mode, main.ts's default (--out-of-service-taint false).
      return [
        remediationController({ ...common, workloadClient: (cluster) => workload.get(cluster), now: clock?.now, config: { concurrency: 2 } }),
      ];
  }
}

/**
 * Starts controller `name` as `user`, caching only `namespace`. Watch retries are capped at 1 s
 * (runMain: 30 s) so a restored verb is picked up quickly, and a `clock` given replaces the real one
 * where the controller takes a clock (remediation timeouts); nothing else differs from main.ts.
 */
export async function startInProcess(
  env: TestEnv,
  name: ControllerName,
  user: string,
  namespace: string,
  clock?: SceneClock,
): Promise<InProcessController> {
  const connection = env.user(user);
  const registry = new Registry();
  const lines: string[] = [];
  const log = newLogger({ level: 'error', sink: (line) => lines.push(line) });
  const counter = new RequestCounter();
  const base = newClient(loadKubeConfigFile(connection.kubeconfigPath), { registry, log, counter });
  const informers = new InformerFactory(base, { namespace, registry, log, watcher: { backoff: { maxMs: 1000 } } });
  const client = new WriteThroughClient(base.transport, informers);
  const events = new EventRecorder({ client: base, component: `metal3-ts-${name}`, log });
  const workload = new ClusterCache(client, { closeGraceMs: 50, probeTimeoutMs: 3_000 });
  const manager = new Manager({ registry, log, healthProbeBindAddress: '127.0.0.1:0', gracefulShutdownTimeoutMs: 5_000 });
  manager.add({ name: 'informers', needsLeaderElection: false, start: (signal) => informers.start(signal) });
  manager.addReadyCheck('informers', () => informers.readiness());
  for (const controller of build(name, { client, informers, registry, events, log }, workload, clock)) manager.add(controller);
  const stop = new AbortController();
  const running = manager.start(stop.signal);
  await manager.started;
  return {
    client,
    registry,
    counter,
    async readyz() {
      const res = await fetch(`http://${manager.addresses.healthProbe}/readyz?verbose`);
      return { status: res.status, body: await res.text() };
    },
    errors: () => [...lines],
    async stop() {
      stop.abort();
      await running.catch(() => {});
      await events.flush();
      workload.close();
      base.transport.close();
    },
  };
}
