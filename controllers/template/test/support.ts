// The template controller in the test process through the shared runner
// (@metal3-ts/test/testing/controller-runner: as its main.ts would run it but with credentials bound
// to exactly deploy/rbac.yaml, an exact request counter and the reconcile counter), plus fixtures and
// a poller.
import { fileURLToPath } from 'node:url';
import type { Client } from '@metal3-ts/generated';
import {
  type Metal3Machine,
  Metal3MachineResource,
  type Metal3MachineTemplate,
  Metal3MachineTemplateResource,
  newMetal3Machine,
  newMetal3MachineTemplate,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { TestEnv } from '@metal3-ts/test/envtest/env';
import { eventually, type RunningController, startInProcess } from '@metal3-ts/test/testing/controller-runner';
import { templateController } from '../src/controller.ts';
import { CLONED_FROM_GROUPKIND_ANNOTATION, CLONED_FROM_NAME_ANNOTATION, CONTROLLER_NAME, METAL3_MACHINE_TEMPLATE_GROUPKIND } from '../src/names.ts';

export const RBAC_MANIFEST = fileURLToPath(new URL('../deploy/rbac.yaml', import.meta.url));

export { eventually, loggedProblems, type RunningController, settled } from '@metal3-ts/test/testing/controller-runner';
export { sleep } from '@metal3-ts/test/testing/eventually';

/** Starts the controller under a fresh user bound to deploy/rbac.yaml, caching only `namespace`. */
export function startTemplateController(env: TestEnv, namespace: string): Promise<RunningController> {
  return startInProcess(env, namespace, {
    rbac: RBAC_MANIFEST,
    user: 'template-controller',
    component: 'metal3machinetemplate-controller',
    controllers: [CONTROLLER_NAME],
    // TEMPLATE_TEST_LOG=1 prints everything the controller logs (for debugging a test).
    verboseEnv: 'TEMPLATE_TEST_LOG',
    build: (deps) => templateController({ ...deps, config: { concurrency: 2 } }),
  });
}

const image = { url: 'http://172.22.0.1/images/node.img', checksum: 'http://172.22.0.1/images/node.img.sha256sum', format: 'raw' as const };

export type Mode = 'metadata' | 'disabled';

export function createTemplate(
  client: Client,
  namespace: string,
  name: string,
  options: { mode?: Mode; nodeReuse?: boolean; annotations?: Record<string, string> } = {},
): Promise<Metal3MachineTemplate> {
  return client.api(Metal3MachineTemplateResource, namespace).create(
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
export function createMachine(
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
  return client.api(Metal3MachineResource, namespace).create(
    newMetal3Machine({ metadata: { name, annotations }, spec: { image, ...(options.mode ? { automatedCleaningMode: options.mode } : {}) } }),
  );
}

/** Each named machine's automatedCleaningMode (`-` when unset), read from the apiserver. */
export async function modes(client: Client, namespace: string): Promise<Record<string, string>> {
  const list = await client.api(Metal3MachineResource, namespace).list();
  return Object.fromEntries(list.items.map((m) => [m.metadata.name ?? '', m.spec?.automatedCleaningMode ?? '-']));
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
