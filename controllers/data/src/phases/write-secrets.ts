// Phase `secret create` (D-9 steps 10–11, D-11…D-13): the template rendered for this machine with the
// addresses allocated before (render/, pure: any error aborts the whole render, so nothing is
// half-written), then every Secret still missing created, controlled by this Metal3Data. A Secret
// of the name that appears meanwhile is never assumed ours (D-12, changed): the next pass judges it.
import type { Client } from '@metal3-ts/generated';
import { type Secret, SecretResource } from '@metal3-ts/generated/core/v1';
import { isAlreadyExists } from '@metal3-ts/generated/runtime/errors';
import type { Metal3DataTemplate } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { renderTargets } from '../decisions/secret-contents.ts';
import { renderedSecret, secretClusterName, withSecretReferences } from '../decisions/secrets.ts';
import { type PhaseContext, type PhaseResult, recorded } from '../phase.ts';
import type { RenderContext } from '../render/index.ts';
import type { DataScope } from '../scope.ts';
import { outcomeOf } from '../status.ts';

/** Writes: the pending Secrets (created). Ends the list: Ready naming those created, or why not. */
export async function writeSecrets(ctx: PhaseContext, scope: DataScope): Promise<PhaseResult> {
  const { observed } = scope;
  const { template } = recorded(observed.association, 'the association');
  const targets = recorded(observed.targets, 'the Secret targets');
  const allocations = recorded(observed.allocations, 'the allocations');
  // The renderer sees the Metal3Data as the patch will leave it (Secret names recorded), in copies.
  const data = withSecretReferences(observed.data, targets);
  const context: RenderContext = {
    ...recorded(observed.related, 'the Machine and host'),
    data,
    template: structuredClone(template) as Metal3DataTemplate,
    allocationFor: (pool) => allocations.get(pool.name),
  };
  const contents = renderTargets(template, context, targets);
  if (contents.kind !== 'Found') return outcomeOf(contents);
  const created: string[] = [];
  const clusterName = secretClusterName(template);
  for (const target of recorded(observed.pending, 'the pending Secrets')) {
    const secret = renderedSecret(target, contents.value.get(target.kind) ?? '', data, clusterName);
    if (!(await createSecret(ctx.client, secret))) {
      return { kind: 'Waiting', reason: `Secret ${target.name} appeared while rendering; checking whose it is` };
    }
    created.push(target.name);
  }
  return { kind: 'Ready', created };
}

/** False when a Secret of that name exists already. */
async function createSecret(client: Client, secret: Secret): Promise<boolean> {
  try {
    await client.api(SecretResource, secret.metadata.namespace).create(secret);
    return true;
  } catch (error) {
    if (isAlreadyExists(error)) return false;
    throw error;
  }
}
