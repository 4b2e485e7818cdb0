// What the phases of a Metal3MachineTemplate reconcile share across reconciles: the client, the
// informers and the event recorder. The per-reconcile state is the scope (scope.ts).
import type { Client } from '@metal3-ts/generated';
import type { Metal3Machine, Metal3MachineTemplate } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { Informer } from '@metal3-ts/shared/cache/types';
import type { EventRecorder } from '@metal3-ts/shared/events/recorder';
import type { TemplateScope } from './scope.ts';

export interface TemplateReconcilerDeps {
  /** Writes Metal3Machines; a write-through client lets the next reconcile read its own writes. */
  readonly client: Client;
  readonly templates: Informer<Metal3MachineTemplate>;
  /** Must carry the CLONED_FROM_TEMPLATE_INDEX index (controller.ts adds it). */
  readonly machines: Informer<Metal3Machine>;
  readonly events?: EventRecorder | undefined;
}

export interface TemplateContext {
  readonly deps: TemplateReconcilerDeps;
}

/**
 * A phase: I/O for one part of the plan, recording what happened in `scope.observed`. What the user
 * should be told goes out as events; the reconcile's error is decided afterwards (outcome.ts).
 */
export type PhaseFn = (ctx: TemplateContext, scope: TemplateScope) => void | Promise<void>;
