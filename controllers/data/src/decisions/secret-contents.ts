// The renderer (../render, pure) seen from the reconcile: which pools the template needs for this
// machine (DR-20) and the bytes of each requested Secret (D-13: metadata first, then network data;
// any error aborts the whole render, so nothing is half-written). A RenderError is bad input and
// names the template field at fault.
import type { Metal3DataTemplate } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { type PoolRef, poolsReferenced, type RelatedObjects, type RenderContext, RenderError, renderMetaData, renderNetworkData } from '../render/index.ts';
import { type Finding, found, invalid } from '../findings.ts';
import type { SecretKind, SecretTarget } from './secrets.ts';

function asFinding<T>(render: () => T): Finding<T> {
  try {
    return found(render());
  } catch (error) {
    if (error instanceof RenderError) return invalid('RenderingFailed', error.message, error.field);
    throw error;
  }
}

/** DR-20 with machine context: the pools to claim addresses from (annotation-named pools included). */
export function referencedPools(template: Readonly<Metal3DataTemplate>, objects: RelatedObjects): Finding<PoolRef[]> {
  return asFinding(() => [...poolsReferenced(template.spec ?? { clusterName: '' }, objects)]);
}

/** The YAML of every target, keyed by kind; nothing when any part fails. */
export function renderTargets(
  template: Readonly<Metal3DataTemplate>,
  context: RenderContext,
  targets: readonly SecretTarget[],
): Finding<ReadonlyMap<SecretKind, string>> {
  const spec = template.spec ?? { clusterName: '' };
  return asFinding(() => {
    const out = new Map<SecretKind, string>();
    if (spec.metaData && targets.some((t) => t.kind === 'metaData')) out.set('metaData', renderMetaData(spec, context));
    if (spec.networkData && targets.some((t) => t.kind === 'networkData')) out.set('networkData', renderNetworkData(spec, context));
    return out;
  });
}
