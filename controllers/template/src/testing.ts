// Fixtures for this package's unit tests: templates, cloned machines, and a transport that answers
// Metal3Machine patches from a script (so the reconcile's error handling is testable without a server).
import { apiError, Client, type HttpRequest, type Status, type Transport } from '@metal3-ts/generated';
import {
  type Metal3Machine,
  type Metal3MachineTemplate,
  newMetal3Machine,
  newMetal3MachineTemplate,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { CLONED_FROM_GROUPKIND_ANNOTATION, CLONED_FROM_NAME_ANNOTATION, METAL3_MACHINE_TEMPLATE_GROUPKIND } from './names.ts';

const image = { url: 'http://172.22.0.1/images/node.img', checksum: 'http://172.22.0.1/images/node.img.sha256sum', format: 'raw' as const };

export function template(
  name: string,
  spec: { mode?: string; nodeReuse?: boolean; annotations?: Record<string, string> } = {},
  namespace = 'ns',
): Metal3MachineTemplate {
  return newMetal3MachineTemplate({
    metadata: { name, namespace, ...(spec.annotations ? { annotations: spec.annotations } : {}) },
    spec: {
      ...(spec.nodeReuse !== undefined ? { nodeReuse: spec.nodeReuse } : {}),
      // A mode outside the enum stands for a template stored under a looser CRD.
      template: { spec: { image, ...(spec.mode !== undefined ? { automatedCleaningMode: spec.mode as 'metadata' } : {}) } },
    },
  });
}

export interface MachineOptions {
  readonly mode?: 'metadata' | 'disabled';
  /** Template name in `cloned-from-name`; null leaves the annotation out. */
  readonly from?: string | null;
  /** `cloned-from-groupkind`; null leaves it out. Default: Metal3MachineTemplate's. */
  readonly groupKind?: string | null;
  readonly namespace?: string;
  readonly annotations?: Record<string, string>;
}

export function machine(name: string, options: MachineOptions = {}): Metal3Machine {
  const annotations: Record<string, string> = { ...options.annotations };
  const from = options.from === undefined ? 'tmpl' : options.from;
  const groupKind = options.groupKind === undefined ? METAL3_MACHINE_TEMPLATE_GROUPKIND : options.groupKind;
  if (from !== null) annotations[CLONED_FROM_NAME_ANNOTATION] = from;
  if (groupKind !== null) annotations[CLONED_FROM_GROUPKIND_ANNOTATION] = groupKind;
  return newMetal3Machine({
    metadata: { name, namespace: options.namespace ?? 'ns', annotations },
    spec: { image, ...(options.mode ? { automatedCleaningMode: options.mode } : {}) },
  });
}

/** An answer to one patch: the patched machine, or an HTTP error code. */
export type ScriptedAnswer = number | 'ok';

/** A Client whose Metal3Machine patches are answered by `script(name)`; records every request. */
export function scriptedClient(script: (name: string) => ScriptedAnswer): { client: Client; requests: HttpRequest[] } {
  const requests: HttpRequest[] = [];
  const transport = {
    // async: a scripted failure rejects, as a real transport's does.
    // deno-lint-ignore require-await
    async request<T>(request: HttpRequest): Promise<T> {
      requests.push(request);
      // Events (from an EventRecorder on this client) are accepted as sent.
      if (request.resource === 'events') {
        return { ...(request.body as object), metadata: { ...(request.body as { metadata: object }).metadata, name: 'e' } } as T;
      }
      const name = decodeURIComponent(request.path.split('?')[0]!.split('/').at(-1) ?? '');
      const answer = script(name);
      if (answer !== 'ok') {
        const status: Status = { apiVersion: 'v1', kind: 'Status', status: 'Failure', code: answer, message: `scripted ${answer} for ${name}` };
        throw apiError(answer, status, { verb: request.verb, path: request.path });
      }
      return { ...machine(name), spec: { ...(request.body as Metal3Machine).spec } } as T;
    },
  };
  return { client: new Client(transport as unknown as Transport), requests };
}
