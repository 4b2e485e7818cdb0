// The template controller in the test process, as its main.ts would run it but with credentials
// bound to exactly deploy/rbac.yaml (a missing permission fails with Forbidden), an exact request
// counter and the reconcile counter, plus fixtures and a poller.
import { fileURLToPath } from 'node:url';
import type { Client } from '@metal3-ts/generated';
import {
  Metal3MachineResource,
  Metal3MachineTemplateResource,
  newMetal3Machine,
  newMetal3MachineTemplate,
  type Metal3Machine,
  type Metal3MachineTemplate,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { InformerFactory } from '@metal3-ts/shared/cache/informer-factory';
import { WriteThroughClient } from '@metal3-ts/shared/cache/write-through';
import { newClient } from '@metal3-ts/shared/client/client';
import { loadKubeConfigFile } from '@metal3-ts/shared/client/kubeconfig';
import { RequestCounter } from '@metal3-ts/shared/client/metrics';
import { EventRecorder } from '@metal3-ts/shared/events/recorder';
import { newLogger } from '@metal3-ts/shared/log/logger';
import { Registry } from '@metal3-ts/shared/metrics/registry';
import type { TestEnv } from '@metal3-ts/test/envtest/env';
import { userBoundTo } from '@metal3-ts/test/envtest/rbac';
import { templateController } from '../src/controller.ts';
import { CLONED_FROM_GROUPKIND_ANNOTATION, CLONED_FROM_NAME_ANNOTATION, CONTROLLER_NAME, METAL3_MACHINE_TEMPLATE_GROUPKIND } from '../src/names.ts';
import { eventually as pollUntil, settled as settledAfter } from '@metal3-ts/test/testing/eventually';

export const RBAC_MANIFEST = fileURLToPath(new URL('../deploy/rbac.yaml', import.meta.url));

export interface RunningController {
  /** Every request the controller (informers, writes, events) sent. */
  readonly counter: RequestCounter;
  /** Reconciles finished so far, whatever their result. */
  reconciles(): number;
  /** Requests that changed something (everything but get/list/watch). */
  writes(resource?: string): number;
  /** Warning and error log lines so far (a Forbidden from a missing permission shows here). */
  problems(): readonly string[];
  stop(): Promise<void>;
}

let users = 0;
/** Controllers running now: a timed-out wait reports what they logged. */
const live = new Set<RunningController>();
/** Warning and error lines of every controller this process started. */
const logged: string[] = [];

/** Every warning or error any controller of this test process logged so far. */
export function loggedProblems(): readonly string[] {
  return [...logged];
}

/** Starts the controller under a fresh user bound to deploy/rbac.yaml, caching only `namespace`. */
export async function startTemplateController(env: TestEnv, namespace: string): Promise<RunningController> {
  const connection = await userBoundTo(env, `template-controller-${++users}-${namespace}`, RBAC_MANIFEST, namespace);
  const counter = new RequestCounter();
  const registry = new Registry();
  // Through the user's kubeconfig file, as the controller process reads its credentials.
  const base = newClient(loadKubeConfigFile(connection.kubeconfigPath), { counter, registry });
  const informers = new InformerFactory(base, { namespace, registry });
  const client = new WriteThroughClient(base.transport, informers);
  const events = new EventRecorder({ client: base, component: 'metal3machinetemplate-controller' });
  const lines: string[] = [];
  const log = newLogger({
    level: 'warn',
    sink: (line) => {
      lines.push(line);
      logged.push(line);
    },
  });
  const controller = templateController({ client, informers, registry, events, log, config: { concurrency: 2 } });
  const stop = new AbortController();
  const runs = Promise.all([informers.start(stop.signal), controller.start(stop.signal)]);
  await informers.waitForSync();
  const total = registry.counter('controller_runtime_reconcile_total', '', ['controller', 'result']);
  const running: RunningController = {
    counter,
    reconciles: () => ['success', 'error', 'requeue', 'requeue_after'].reduce((n, result) => n + total.get({ controller: CONTROLLER_NAME, result }), 0),
    writes: (resource) =>
      counter.snapshot().filter((c) => !['get', 'list', 'watch'].includes(c.verb) && (resource === undefined || c.resource === resource)).reduce((n, c) => n + c.count, 0),
    problems: () => [...lines],
    async stop() {
      live.delete(running);
      stop.abort();
      await runs;
      await events.flush();
      base.transport.close();
    },
  };
  live.add(running);
  return running;
}

const image = { url: 'http://172.22.0.1/images/node.img', checksum: 'http://172.22.0.1/images/node.img.sha256sum', format: 'raw' as const };

export type Mode = 'metadata' | 'disabled';

export async function createTemplate(
  client: Client,
  namespace: string,
  name: string,
  options: { mode?: Mode; nodeReuse?: boolean; annotations?: Record<string, string> } = {},
): Promise<Metal3MachineTemplate> {
  return await client.api(Metal3MachineTemplateResource, namespace).create(
    newMetal3MachineTemplate({
      metadata: { name, ...(options.annotations ? { annotations: options.annotations } : {}) },
      spec: {
        ...(options.nodeReuse !== undefined ? { nodeReuse: options.nodeReuse } : {}),
        template: { spec: { image, ...(options.mode ? { automatedCleaningMode: options.mode } : {}) } },
      },
    }),
  );
}

/** Sets (or with null removes) the template's automatedCleaningMode. */
export function setTemplateMode(client: Client, namespace: string, name: string, mode: Mode | null): Promise<Metal3MachineTemplate> {
  return client.api(Metal3MachineTemplateResource, namespace).mergePatch(name, { spec: { template: { spec: { automatedCleaningMode: mode } } } });
}

/** A Metal3Machine as Cluster API clones it from template `from` (annotations as CAPI stamps them). */
export async function createMachine(
  client: Client,
  namespace: string,
  name: string,
  options: { from?: string; groupKind?: string; mode?: Mode; annotations?: Record<string, string> } = {},
): Promise<Metal3Machine> {
  const annotations: Record<string, string> = { ...options.annotations };
  if (options.from !== undefined) {
    annotations[CLONED_FROM_NAME_ANNOTATION] = options.from;
    annotations[CLONED_FROM_GROUPKIND_ANNOTATION] = options.groupKind ?? METAL3_MACHINE_TEMPLATE_GROUPKIND;
  }
  return await client.api(Metal3MachineResource, namespace).create(
    newMetal3Machine({ metadata: { name, annotations }, spec: { image, ...(options.mode ? { automatedCleaningMode: options.mode } : {}) } }),
  );
}

/** Each named machine's automatedCleaningMode (`-` when unset), read from the apiserver. */
export async function modes(client: Client, namespace: string): Promise<Record<string, string>> {
  const list = await client.api(Metal3MachineResource, namespace).list();
  return Object.fromEntries(list.items.map((m) => [m.metadata.name ?? '', m.spec?.automatedCleaningMode ?? '-']));
}

export { sleep } from '@metal3-ts/test/testing/eventually';

/** Polls `probe` until it returns something other than undefined; a timeout reports what the controllers logged. */
export function eventually<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000): Promise<T> {
  return pollUntil(what, probe, { timeoutMs, explain: () => [...live].flatMap((c) => c.problems()) });
}

/** Waits until the controller finished more reconciles than `after` and then stayed quiet for `quietMs`. */
export function settled(controller: { reconciles(): number }, after: number, quietMs = 400): Promise<void> {
  return settledAfter(controller, after, quietMs, { explain: () => [...live].flatMap((c) => c.problems()) });
}

/** Waits until `modes` equals `expected` for the named machines; returns the last reading. */
export function modesBecome(client: Client, namespace: string, expected: Record<string, string>, timeoutMs?: number): Promise<Record<string, string>> {
  return eventually(
    `modes ${JSON.stringify(expected)}`,
    async () => {
      const now = await modes(client, namespace);
      return Object.entries(expected).every(([name, mode]) => now[name] === mode) ? now : undefined;
    },
    timeoutMs,
  );
}
