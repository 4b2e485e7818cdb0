// What one kind contributes to conversion: the field-by-field rules each way on the object without its
// metadata (`spec`, `status`, whatever else the body holds), and the paths that are object references
// to restore whole (restore.ts). The rules are total functions: a field they cannot carry is left out
// and the lossless layer (lossless.ts) keeps it in an annotation.
import type { JsonMap } from './json.ts';

export interface KindRules {
  readonly kind: string;
  /** v1beta1 body → v1beta2 body (the hub). */
  readonly toHub: (body: JsonMap) => JsonMap;
  /** v1beta2 body → v1beta1 body. */
  readonly toSpoke: (body: JsonMap) => JsonMap;
  /** Dotted paths (`[]` for list items) restored all-or-nothing, in v1beta1 and in v1beta2 bodies. */
  readonly atomic: ReadonlySet<string>;
}

export const group = 'infrastructure.cluster.x-k8s.io';
export const spokeVersion = `${group}/v1beta1`;
export const hubVersion = `${group}/v1beta2`;
