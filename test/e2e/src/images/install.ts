// A controller's install manifests as config/controllers/<c>/ holds them (read by kind, never by
// document order or file name), applied for one test the way kustomize would place them elsewhere:
// namespaced objects moved to the test's namespace, cluster-scoped ones (and the references to them)
// given the namespace as a name suffix, so tests sharing one apiserver never touch each other's RBAC.
// The rules, verbs and subjects stay exactly as written.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { ApiClient, KubeObject } from '@metal3-ts/test/envtest/http';

const NAMESPACED = new Set(['ServiceAccount', 'Role', 'RoleBinding', 'Deployment', 'Service', 'ConfigMap', 'Secret']);

type Obj = KubeObject & { metadata: { name: string; namespace?: string }; [key: string]: unknown };

export interface ControllerInstall {
  readonly serviceAccount: Obj;
  readonly clusterRole: Obj & { rules: Rule[] };
  /** What the test applies: the ServiceAccount and the RBAC objects (other kinds are not its concern). */
  readonly objects: readonly Obj[];
  /** The `manager` container's args in the Deployment. */
  readonly args: readonly string[];
  readonly image: string;
}

export interface Rule {
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly verbs: readonly string[];
}

/** Every object in the YAML files of `dir`. */
export function readManifestDir(dir: string): Obj[] {
  return readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f) && f !== 'kustomization.yaml')
    .sort()
    .flatMap((f) => parseAllDocuments(readFileSync(join(dir, f), 'utf8')).map((d) => d.toJSON() as Obj | null))
    .filter((o): o is Obj => o !== null && typeof o === 'object' && typeof o.kind === 'string');
}

const one = (objects: readonly Obj[], kind: string, dir: string): Obj => {
  const found = objects.filter((o) => o.kind === kind);
  if (found.length !== 1) throw new Error(`${dir}: expected one ${kind}, found ${found.length}`);
  return found[0]!;
};

/** The install objects of controller `dir`, relocated to `namespace` (see the module comment). */
export function controllerInstall(dir: string, namespace: string): ControllerInstall {
  const source = readManifestDir(dir);
  const suffix = (name: string) => `${name}-${namespace}`;
  const objects = source.map((o): Obj => {
    const copy = structuredClone(o);
    // kustomize's `namespace:` may be what places them: every namespaced kind is moved, set or not.
    if (NAMESPACED.has(copy.kind ?? '')) copy.metadata.namespace = namespace;
    if (copy.kind === 'ClusterRole' || copy.kind === 'ClusterRoleBinding') copy.metadata.name = suffix(copy.metadata.name);
    const roleRef = copy['roleRef'] as { kind: string; name: string } | undefined;
    if (copy.kind === 'ClusterRoleBinding' && roleRef?.kind === 'ClusterRole') roleRef.name = suffix(roleRef.name);
    for (const subject of (copy['subjects'] as { kind: string; namespace?: string }[] | undefined) ?? []) {
      if (subject.kind === 'ServiceAccount') subject.namespace = namespace;
    }
    return copy;
  });
  const deployment = one(objects, 'Deployment', dir) as Obj & {
    spec: { template: { spec: { containers: { name: string; image: string; args?: string[] }[] } } };
  };
  const manager = deployment.spec.template.spec.containers.find((c) => c.name === 'manager');
  if (!manager) throw new Error(`${dir}: the Deployment has no container "manager"`);
  return {
    serviceAccount: one(objects, 'ServiceAccount', dir),
    clusterRole: one(objects, 'ClusterRole', dir) as Obj & { rules: Rule[] },
    objects: objects.filter((o) => Object.hasOwn(PATHS, o.kind ?? '')),
    args: manager.args ?? [],
    image: manager.image,
  };
}

const PATHS: Record<string, (o: Obj) => string> = {
  ServiceAccount: (o) => `/api/v1/namespaces/${o.metadata.namespace}/serviceaccounts/${o.metadata.name}`,
  ClusterRole: (o) => `/apis/rbac.authorization.k8s.io/v1/clusterroles/${o.metadata.name}`,
  ClusterRoleBinding: (o) => `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${o.metadata.name}`,
  Role: (o) => `/apis/rbac.authorization.k8s.io/v1/namespaces/${o.metadata.namespace}/roles/${o.metadata.name}`,
  RoleBinding: (o) => `/apis/rbac.authorization.k8s.io/v1/namespaces/${o.metadata.namespace}/rolebindings/${o.metadata.name}`,
};

/** Server-side applies the objects (ServiceAccount, RBAC); another kind is an error naming it. */
export async function applyAll(admin: ApiClient, objects: readonly Obj[]): Promise<void> {
  for (const o of objects) {
    const path = PATHS[o.kind ?? ''];
    if (!path) throw new Error(`no apply path for ${o.kind} ${o.metadata.name}`);
    await admin.apply(path(o), o, 'metal3-ts-image-test');
  }
}

/**
 * The Deployment's args with the probe and metrics addresses moved to free loopback ports: a pod has
 * its own network namespace, the sandbox shares the host's (other tests, other engineers).
 */
export function hostNetworkArgs(args: readonly string[]): string[] {
  const rebound = new Set(['--health-probe-bind-address', '--metrics-bind-address']);
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const [name] = arg.split('=', 1) as [string];
    if (!rebound.has(name)) {
      out.push(arg);
      continue;
    }
    if (!arg.includes('=')) i++;
    out.push(`${name}=127.0.0.1:0`);
  }
  for (const name of rebound) if (!out.some((a) => a.startsWith(`${name}=`))) out.push(`${name}=127.0.0.1:0`);
  return out;
}

/** The Lease name the args choose (`--leader-elect-id`), else the harness default. */
export function leaseName(args: readonly string[]): string {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg.startsWith('--leader-elect-id=')) return arg.slice('--leader-elect-id='.length);
    if (arg === '--leader-elect-id') return args[i + 1] ?? '';
  }
  return 'controller-leader-election-capm3';
}
