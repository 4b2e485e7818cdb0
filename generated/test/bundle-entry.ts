// Entry point bundled by bundle.test.ts.
import { Client, registry } from '../src/index.ts';
import { isMetal3Machine, newMetal3Machine } from '../src/infrastructure.cluster.x-k8s.io/v1beta1.ts';

export function check(): string[] {
  const m = newMetal3Machine({ metadata: { name: 'm' } });
  const d = registry.forObject(m);
  return [d?.plural ?? '', String(isMetal3Machine(m)), String(typeof Client !== 'function'), registry.get('', 'v1', 'Secret')?.kind ?? ''];
}
