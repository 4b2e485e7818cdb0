// Every write a controller sends, told apart by resource and by the shape of its body, so the
// benchmark can say which step of the reconcile a write belongs to without the product tagging its
// requests (issue 20: "the write count per machine broken down by resource and step"). It wraps the
// transport's `before` hook of the controller under test: one call per attempt, as the apiserver's
// audit log counts them. A shape is the write's target (resource, `/status`) and the fields its body
// sets, two levels deep, annotation and label keys named: a patch of `metadata.finalizers` is the
// finalizer step, one of `spec.consumerRef` the host claim, and so on (stepOf).
import process from 'node:process';
import type { HttpRequest, Transport } from '@metal3-ts/generated';

/** BENCH_WRITE_LOG=1 prints every write (path, shape, the body's start) to stderr, in order: which write follows which. */
const LOG = process.env['BENCH_WRITE_LOG'] === '1';

/** Writes per shape, `resource[/status] verb: field, field…`. */
export type WriteTally = Map<string, number>;

const WRITES = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
/** Fields every locked write carries: they say nothing about the step. */
const NOISE = new Set(['metadata.resourceVersion']);
/** Keys shown by name under these fields, since which annotation a patch sets tells its step. */
const KEYED = new Set(['metadata.annotations', 'metadata.labels']);

/** Counts every write sent through `transport` from now on into the returned tally. */
export function tallyWrites(transport: Transport): WriteTally {
  const tally: WriteTally = new Map();
  const before = transport.hooks.before;
  transport.hooks = {
    ...transport.hooks,
    before: (request) => {
      if (WRITES.has(request.verb)) {
        const shape = shapeOf(request);
        if (LOG) console.error('write', request.path.split('?')[0], shape, JSON.stringify(request.body).slice(0, 600));
        tally.set(shape, (tally.get(shape) ?? 0) + 1);
      }
      return before ? before(request) : Promise.resolve();
    },
  };
  return tally;
}

/** `resource[/status] verb: fields` of one write. */
export function shapeOf(request: Pick<HttpRequest, 'verb' | 'resource' | 'path' | 'body'>): string {
  const path = request.path.split('?')[0] ?? '';
  const target = path.endsWith('/status') ? `${request.resource}/status` : request.resource;
  if (request.resource === 'events' || request.verb === 'create' || request.verb === 'delete') return `${target} ${request.verb}`;
  return `${target} ${request.verb}: ${fieldsOf(request.body).join(', ')}`;
}

function fieldsOf(body: unknown): string[] {
  const fields = new Set<string>();
  if (Array.isArray(body)) {
    // A JSON patch: the paths its operations touch, two levels deep.
    for (const op of body as { path?: string }[]) fields.add((op.path ?? '').split('/').slice(1, 3).join('.'));
  } else if (body && typeof body === 'object') {
    for (const [top, value] of Object.entries(body)) {
      if (!value || typeof value !== 'object' || Array.isArray(value)) {
        fields.add(top);
        continue;
      }
      for (const [field, inner] of Object.entries(value)) {
        const name = `${top}.${field}`;
        if (NOISE.has(name)) continue;
        // A removed key shows as `-key`.
        const keys = (map: object) => Object.entries(map).map(([k, v]) => (v === null ? `-${k}` : k)).sort().join(' ');
        if (KEYED.has(name) && inner && typeof inner === 'object') fields.add(`${name}[${keys(inner)}]`);
        else fields.add(name);
      }
    }
  }
  return [...fields].sort();
}

/** The reconcile step a shape belongs to, as far as its fields tell (the shape itself otherwise). */
export function stepOf(shape: string): string {
  for (const [pattern, step] of STEPS) if (pattern.test(shape)) return step;
  return shape;
}

const HOST = 'metal3\\.io/BareMetalHost';
const MARK = 'metal3machine\\.infrastructure\\.cluster\\.x-k8s\\.io/bmc-secret-labelled';
const STEPS: readonly (readonly [RegExp, string])[] = [
  [/^events /, 'Event (apart)'],
  [/^baremetalhosts patch: (?=.*spec\.consumerRef)(?=.*spec\.image)/, 'host: claim + provisioning'],
  [/^baremetalhosts patch: .*spec\.consumerRef/, 'host: claim'],
  [/^baremetalhosts patch: .*spec\.image/, 'host: provisioning'],
  [/^secrets patch/, 'Secret: BMC label'],
  [new RegExp(`^metal3machines patch: metadata\\.annotations\\[${HOST}\\], metadata\\.finalizers$`), 'machine: finalizer + host record'],
  [/^metal3machines patch: metadata\.finalizers$/, 'machine: finalizer'],
  [new RegExp(`^metal3machines patch: metadata\\.annotations\\[-${HOST}\\]$`), 'machine: host record removed (a lost claim)'],
  [new RegExp(`^metal3machines patch: metadata\\.annotations\\[${HOST}\\]$`), 'machine: host record'],
  [new RegExp(`^metal3machines patch: metadata\\.annotations\\[${MARK}\\], spec\\.providerID$`), 'machine: provider ID + Secret mark'],
  [/^metal3machines patch: spec\.providerID$/, 'machine: provider ID'],
  [new RegExp(`^metal3machines patch: metadata\\.annotations\\[.*${MARK}.*\\]$`), 'machine: Secret mark (+ host record again)'],
  [/^metal3machines\/status /, 'machine: status'],
];

/** The tally as rows `[step, writes per machine]` by step, events last, most writes first. */
export function tallyRows(tally: WriteTally, machines: number): [string, number][] {
  const steps = new Map<string, number>();
  for (const [shape, n] of tally) steps.set(stepOf(shape), (steps.get(stepOf(shape)) ?? 0) + n);
  const last = (step: string) => (step.startsWith('Event') ? 1 : 0);
  return [...steps.entries()].map(([step, n]) => [step, n / machines] as [string, number]).sort((a, b) => last(a[0]) - last(b[0]) || b[1] - a[1]);
}
