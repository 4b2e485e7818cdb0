// Pollers and readers of the cluster state the tests assert on. A poll that times out reports what
// the in-process controllers logged (the shared runner keeps the ones running now).
import * as assert from 'uvu/assert';
import type { Client, KubeObject, ResourceDescriptor } from '@metal3-ts/generated';
import { type Machine, MachineResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { type Event, EventResource } from '@metal3-ts/generated/core/v1';
import { type Metal3Machine, Metal3MachineResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { type BareMetalHost, BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { getCondition } from '@metal3-ts/shared/conditions/get';
import { getV1Beta2Condition } from '@metal3-ts/shared/conditions/v1beta2/get';
import { runningProblems } from '@metal3-ts/test/testing/controller-runner';
import { type Eventually, eventuallyWith, settled as settledAfter } from '@metal3-ts/test/testing/eventually';
import { objectGone, objectWhen } from '@metal3-ts/test/testing/objects';
import { HOST_ANNOTATION } from '../src/names.ts';

export { sleep } from '@metal3-ts/test/testing/eventually';

/** What the in-process controllers running now logged: it explains a poll that timed out. */
const explain = runningProblems;

/** Polls `probe` until it returns something other than undefined (20 s unless told); a timeout reports what the controllers logged. */
export const eventually: Eventually = eventuallyWith({ timeoutMs: 20_000, explain });

/** Waits until the controller finished more reconciles than `after` and then stayed quiet for `quietMs`. */
export function settled(controller: { reconciles(): number }, after: number, quietMs = 500): Promise<void> {
  return settledAfter(controller, after, quietMs, { explain });
}

/** Polls the object until `check` accepts it. */
export function when<T extends KubeObject>(
  client: Client,
  descriptor: ResourceDescriptor<T>,
  namespace: string,
  name: string,
  what: string,
  check: (o: T) => boolean,
  timeoutMs = 20_000,
): Promise<T> {
  return objectWhen(client, descriptor, namespace, name, what, check, { timeoutMs, explain });
}

export const metal3MachineWhen = (client: Client, namespace: string, name: string, what: string, check: (m: Metal3Machine) => boolean, timeoutMs?: number) =>
  when(client, Metal3MachineResource, namespace, name, what, check, timeoutMs);

export const hostWhen = (client: Client, namespace: string, name: string, what: string, check: (h: BareMetalHost) => boolean, timeoutMs?: number) =>
  when(client, BareMetalHostResource, namespace, name, what, check, timeoutMs);

/** Resolves once `name` is gone (404). */
export function gone<T extends KubeObject>(
  client: Client,
  descriptor: ResourceDescriptor<T>,
  namespace: string,
  name: string,
  timeoutMs = 20_000,
): Promise<true> {
  return objectGone(client, descriptor, namespace, name, { timeoutMs, explain });
}

/** `status/reason/severity` of a v1beta1 condition, `-` when absent. */
export function v1(obj: Metal3Machine, type: string): string {
  const c = getCondition(obj, type);
  return c ? `${c.status}/${c.reason ?? ''}/${c.severity ?? ''}` : '-';
}

/** `status/reason` of a v1beta2 condition, `-` when absent. */
export function v2(obj: Metal3Machine, type: string): string {
  const c = getV1Beta2Condition(obj, type);
  return c ? `${c.status}/${c.reason}` : '-';
}

/** Events of `reason` about object `name`. */
export async function eventsFor(client: Client, namespace: string, name: string, reason: string): Promise<Event[]> {
  const list = await client.api(EventResource, namespace).list();
  return list.items.filter((e) => e.involvedObject.name === name && e.reason === reason);
}

/** The hosts of `namespace` whose consumerRef names each Metal3Machine, by Metal3Machine name. */
export async function consumers(client: Client, namespace: string): Promise<Map<string, string[]>> {
  const map = new Map<string, string[]>();
  for (const host of (await client.api(BareMetalHostResource, namespace).list()).items) {
    const name = host.spec?.consumerRef?.name;
    if (name) map.set(name, [...(map.get(name) ?? []), host.metadata.name ?? '']);
  }
  return map;
}

/** The host name part of the Metal3Machine's host annotation (M-41), '' without one. */
export const hostNamed = (m3m: Metal3Machine): string => (m3m.metadata.annotations?.[HOST_ANNOTATION] ?? '').split('/')[1] ?? '';

/** The message of a v1beta1 condition, '' when absent. */
export const v1Message = (m: Metal3Machine, type: string): string => getCondition(m, type)?.message ?? '';

/** The message of a v1beta2 condition, '' when absent. */
export const v2Message = (m: Metal3Machine, type: string): string => getV1Beta2Condition(m, type)?.message ?? '';

/** The host Metal3Machine `name` ends up with: the name part of its host annotation, which must be `<namespace>/<host>`. */
export async function associatedHost(client: Client, namespace: string, name: string, timeoutMs = 30_000): Promise<string> {
  // The record is written before the claim (phases/host-record.ts) and forgotten if the claim is lost,
  // so a machine is associated once the host it records names it as consumer.
  const value = await eventually(`${name} associated`, async () => {
    const m3m = await client.api(Metal3MachineResource, namespace).get(name);
    const recorded = m3m.metadata.annotations?.[HOST_ANNOTATION];
    const host = recorded?.split('/')[1];
    if (!recorded || !host) return undefined;
    const consumer = (await client.api(BareMetalHostResource, namespace).get(host)).spec?.consumerRef;
    return consumer?.name === name && consumer.namespace === namespace ? recorded : undefined;
  }, timeoutMs);
  assert.is(value.split('/')[0], namespace, `${name}: the annotation is <namespace>/<host>`);
  return value.split('/')[1] ?? '';
}

/** The name in host `name`'s consumerRef. */
export async function consumerOf(client: Client, namespace: string, name: string): Promise<string | undefined> {
  return (await client.api(BareMetalHostResource, namespace).get(name)).spec?.consumerRef?.name;
}

/** The Machine `name` once Cluster API found its Node (status.nodeRef). */
export const machineWithNode = (client: Client, namespace: string, name: string, timeoutMs?: number): Promise<Machine> =>
  when(client, MachineResource, namespace, name, `Machine ${name} with a nodeRef`, (m) => !!m.status?.nodeRef, timeoutMs);
