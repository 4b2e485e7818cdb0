// Which Machines a MachineSet deletes first when it has too many (CAPI's delete policies):
//   1. Machines already being deleted (they count toward the excess; nothing more to do for them);
//   2. Machines annotated `cluster.x-k8s.io/delete-machine`;
//   3. unhealthy Machines: no nodeRef yet, a failure reason/message, or NodeHealthy /
//      HealthCheckSucceeded False;
//   4. the rest, by policy: Oldest (default for this simulator) or Newest by creation time.
// CAPI's "Random" policy picks arbitrarily within a rank; the simulator orders it oldest first so runs
// are repeatable. Ties are broken by name.
import type { Machine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { DELETE_MACHINE_ANNOTATION } from './machineset-constants.ts';

export type DeletePolicy = 'Random' | 'Newest' | 'Oldest';

const MUST_DELETE = 3;
const SHOULD_DELETE = 2;
const BETTER_DELETE = 1;
const COULD_DELETE = 0;

function isHealthy(machine: Readonly<Machine>): boolean {
  const status = machine.status;
  if (!status?.nodeRef) return false;
  if (status.failureReason || status.failureMessage) return false;
  return !(status.conditions ?? []).some((c) => (c.type === 'NodeHealthy' || c.type === 'HealthCheckSucceeded') && c.status === 'False');
}

export function deletePriority(machine: Readonly<Machine>): number {
  if (machine.metadata.deletionTimestamp) return MUST_DELETE;
  if (machine.metadata.annotations?.[DELETE_MACHINE_ANNOTATION] !== undefined) return SHOULD_DELETE;
  if (!isHealthy(machine)) return BETTER_DELETE;
  return COULD_DELETE;
}

function byAge(a: Readonly<Machine>, b: Readonly<Machine>): number {
  const x = a.metadata.creationTimestamp ?? '';
  const y = b.metadata.creationTimestamp ?? '';
  if (x !== y) return x < y ? -1 : 1;
  const m = a.metadata.name ?? '';
  const n = b.metadata.name ?? '';
  return m < n ? -1 : m > n ? 1 : 0;
}

/** The `count` Machines to delete first, in deletion order (may include Machines already deleting). */
export function machinesToDelete<M extends Readonly<Machine>>(machines: readonly M[], count: number, policy: DeletePolicy = 'Random'): M[] {
  if (count <= 0) return [];
  const age = policy === 'Newest' ? (a: M, b: M) => byAge(b, a) : byAge;
  return [...machines].sort((a, b) => deletePriority(b) - deletePriority(a) || age(a, b)).slice(0, count);
}
