// Waiting for an object's state in tests: one object read until a check accepts it, or until the
// object is gone. The controller packages' test supports wrap these with their default timeouts and
// the lines their controllers logged.
import { type Client, isNotFound, type KubeObject, type ResourceDescriptor } from '@metal3-ts/generated';
import { eventually, type EventuallyOptions } from './eventually.ts';

/** Polls `name` until `check` accepts it (a missing object counts as "not yet"). */
export function objectWhen<T extends KubeObject>(
  client: Client,
  descriptor: ResourceDescriptor<T>,
  namespace: string | undefined,
  name: string,
  what: string,
  check: (o: T) => boolean,
  options: number | EventuallyOptions = {},
): Promise<T> {
  return eventually(
    what,
    async () => {
      try {
        const o = await client.api(descriptor, namespace).get(name);
        return check(o) ? o : undefined;
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    },
    options,
  );
}

/** Resolves once `name` is gone (404). */
export function objectGone<T extends KubeObject>(
  client: Client,
  descriptor: ResourceDescriptor<T>,
  namespace: string | undefined,
  name: string,
  options: number | EventuallyOptions = {},
): Promise<true> {
  return eventually(
    `${descriptor.kind} ${name} gone`,
    async () => {
      try {
        await client.api(descriptor, namespace).get(name);
        return undefined;
      } catch (error) {
        if (isNotFound(error)) return true;
        throw error;
      }
    },
    options,
  );
}
