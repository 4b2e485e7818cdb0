// Storage migration (research S-11): after our CRDs change their storage version (an upgrade from
// the v1beta1 generation, or from CAPM3, whose objects are stored at v1beta1), objects written before
// stay encoded at the old version until written again, and the CRD must keep serving that version.
// Each controller process migrates the CRDs of the kinds it writes, with the rights it has for them:
// one reconcile per CRD, woken by the CRD changing (its own informer, by name): the CRD read from the
// cache → plan.ts → every object written again → storedVersions trimmed → a Normal event on the CRD
// saying what was done. Objects that could not be written are a Warning event naming them and a
// failed reconcile, retried with backoff; storedVersions keeps the old version until every object is
// rewritten, so nothing becomes unreadable. Upstream migrates six of its nine kinds (S-11).
import type { Client, ResourceDescriptor } from '@metal3-ts/generated';
import type { SelectedInformerSource } from '../cache/types.ts';
import type { Clock } from '../clock/clock.ts';
import { Controller } from '../controller/controller.ts';
import { enqueueSelf } from '../controller/handlers.ts';
import { informerSource } from '../controller/source.ts';
import type { EventRecorder } from '../events/recorder.ts';
import type { Logger } from '../log/logger.ts';
import { resourceName } from '../meta/resource-name.ts';
import type { Registry } from '../metrics/registry.ts';
import type { ReconcileContext, Request, Result } from '../reconcile/reconcile.ts';
import { crdSelection, type CustomResourceDefinition, CustomResourceDefinitionResource } from './crd.ts';
import { storagePlan } from './plan.ts';
import { rewriteObjects, trimStoredVersions } from './rewrite.ts';

export const STORAGE_MIGRATED = 'StorageVersionMigrated';
export const STORAGE_MIGRATION_FAILED = 'StorageVersionMigrationFailed';

export interface StorageMigrationDeps {
  readonly client: Client;
  readonly informers: SelectedInformerSource;
  readonly events?: EventRecorder | undefined;
  readonly registry?: Registry;
  readonly log?: Logger;
  readonly clock?: Clock;
}

/** A migration that could not rewrite every object; storedVersions is left as it was. */
export class StorageMigrationError extends Error {
  override name = 'StorageMigrationError';
  readonly failures: readonly string[];
  constructor(crd: string, failures: readonly string[]) {
    super(`${crd}: ${failures.length} object(s) could not be rewritten at the storage version: ${failures.slice(0, 3).join('; ')}`);
    this.failures = failures;
  }
}

/** The controller `<owner>-storage-migration`, migrating the CRDs of `kinds` (the kinds `owner` writes). */
export function storageMigrationController(owner: string, kinds: readonly ResourceDescriptor[], deps: StorageMigrationDeps): Controller {
  const crds = new Map(kinds.map((kind) => {
    const name = resourceName(kind.plural, kind.group);
    return [name, deps.informers.selectedInformerFor(CustomResourceDefinitionResource, crdSelection(name))] as const;
  }));
  const cached = (request: Request) => crds.get(request.name)?.store.get({ name: request.name });
  return new Controller({
    name: `${owner}-storage-migration`,
    kind: CustomResourceDefinitionResource.kind,
    group: CustomResourceDefinitionResource.group,
    reconciler: (request, context) => migrate(deps, cached(request), context),
    sources: [...crds.values()].map((informer) => informerSource(informer, enqueueSelf<CustomResourceDefinition>())),
    ...(deps.events ? { failureEvents: { recorder: deps.events, objectOf: cached } } : {}),
    ...(deps.registry ? { registry: deps.registry } : {}),
    ...(deps.log ? { log: deps.log } : {}),
    ...(deps.clock ? { clock: deps.clock } : {}),
  });
}

async function migrate(deps: StorageMigrationDeps, crd: Readonly<CustomResourceDefinition> | undefined, { log, signal }: ReconcileContext): Promise<Result> {
  if (!crd) return {};
  const plan = storagePlan(crd);
  switch (plan.kind) {
    case 'Current':
      return {};
    case 'Invalid':
      deps.events?.warning(crd, STORAGE_MIGRATION_FAILED, plan.message);
      return {};
    case 'Migrate': {
      const name = crd.metadata.name!;
      const done = await rewriteObjects(deps.client, crd, plan.via, signal);
      if (done.failures.length > 0) {
        const error = new StorageMigrationError(name, done.failures);
        deps.events?.warning(crd, STORAGE_MIGRATION_FAILED, error.message);
        throw error;
      }
      if (!(await trimStoredVersions(deps.client, crd, plan.storage))) return {};
      const was = crd.status?.storedVersions ?? [];
      log.info('storage version migrated', { crd: name, storage: plan.storage, was, rewritten: done.rewritten, gone: done.gone });
      deps.events?.normal(
        crd,
        STORAGE_MIGRATED,
        `${done.rewritten} object(s) rewritten at ${plan.storage}; storedVersions [${was.join(', ')}] → [${plan.storage}]`,
      );
      return {};
    }
  }
}
