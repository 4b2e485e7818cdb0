// What kubeadm does with etcd on a control-plane Node, as pure decisions: the first control-plane
// Node starts a new etcd cluster, every later one is added as a member through a running member and
// starts with the member list it got back (`--initial-cluster-state existing`). Member name = Node
// name, which is how KubeadmControlPlane matches members to Machines. A member already listed under
// the joining Node's name is a leftover of an earlier incarnation of that Node (a reused host whose
// member was never removed), removed first as `kubeadm reset` would have.

/** A member as etcd's JSON gateway lists it (`/v3/cluster/member/list`, `/v3/cluster/member/add`). */
export interface GatewayMember {
  /** uint64 as a JSON string. */
  readonly ID?: string;
  /** Empty until the member has started. */
  readonly name?: string;
  readonly peerURLs?: readonly string[];
  readonly clientURLs?: readonly string[];
}

export type EtcdPlan =
  | { readonly action: 'running' }
  | { readonly action: 'new' }
  | { readonly action: 'join'; readonly through: string };

/** What to do for `nodeName`, given the members running here (name → node-local URL). */
export function etcdPlan(nodeName: string, running: ReadonlyMap<string, { readonly localUrl: string }>): EtcdPlan {
  if (running.has(nodeName)) return { action: 'running' };
  const through = [...running.values()][0];
  return through ? { action: 'join', through: through.localUrl } : { action: 'new' };
}

/** Members to remove before adding `nodeName`: earlier members of the same name. */
export function staleMembers(nodeName: string, members: readonly GatewayMember[]): string[] {
  return members.filter((m) => m.name === nodeName && m.ID).map((m) => m.ID!);
}

/**
 * `--initial-cluster` for the member just added under `peerUrl`: every started member, and ours.
 * Members added but never started (no name) would make etcd refuse the list; they are left out.
 */
export function initialCluster(nodeName: string, peerUrl: string, members: readonly GatewayMember[]): string {
  const entries = members
    .filter((m) => m.name && m.name !== nodeName && m.peerURLs?.[0])
    .map((m) => `${m.name}=${m.peerURLs![0]}`);
  return [...entries, `${nodeName}=${peerUrl}`].join(',');
}

/** The etcd CA certificate out of KCP's `<cluster>-etcd` Secret data (base64 `tls.crt`). */
export function etcdCaPem(data: Readonly<Record<string, string>> | undefined): string | undefined {
  const value = data?.['tls.crt'];
  if (!value) return undefined;
  const pem = Buffer.from(value, 'base64').toString('utf8');
  return pem.includes('-----BEGIN CERTIFICATE-----') ? pem : undefined;
}
