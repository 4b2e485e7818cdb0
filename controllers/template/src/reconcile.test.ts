import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { HttpRequest } from '@metal3-ts/generated';
import type { Event } from '@metal3-ts/generated/core/v1';
import { Metal3MachineResource, Metal3MachineTemplateResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { EventRecorder } from '@metal3-ts/shared/events/recorder';
import { silentLogger } from '@metal3-ts/shared/log/logger';
import { REFERENCE_FIELDS } from '@metal3-ts/shared/meta/references';
import { isTerminalError } from '@metal3-ts/shared/reconcile/reconcile';
import { FakeInformerSource } from '@metal3-ts/shared/testing/fake-informer';
import { withReferenceAt } from '@metal3-ts/shared/testing/references';
import { byClonedFromTemplate, CLONED_FROM_TEMPLATE_INDEX } from './cloned-from.ts';
import { CleaningModeRejectedError, InvalidCleaningModeError, MachineUpdateError } from './errors.ts';
import { reconcileTemplate } from './reconcile.ts';
import { machine, type ScriptedAnswer, scriptedClient, template } from './testing.ts';

const test = suite('template reconcile with a scripted apiserver: guards, zero writes, bad input, write failures');

const context = { signal: new AbortController().signal, reconcileId: 'r', log: silentLogger };

function setup(
  objects: { templates: ReturnType<typeof template>[]; machines: ReturnType<typeof machine>[] },
  script: (name: string) => ScriptedAnswer = () => 'ok',
) {
  const informers = new FakeInformerSource();
  const templates = informers.informerFor(Metal3MachineTemplateResource);
  const machines = informers.informerFor(Metal3MachineResource);
  machines.addIndex(CLONED_FROM_TEMPLATE_INDEX, byClonedFromTemplate);
  for (const t of objects.templates) templates.create(t);
  for (const m of objects.machines) machines.create(m);
  const { client, requests } = scriptedClient(script);
  const events = new EventRecorder({ client, component: 'test' });
  const deps = { client, templates, machines, events };
  const run = () => reconcileTemplate(deps, { namespace: 'ns', name: 'tmpl' }, context);
  const patches = () => requests.filter((r) => r.resource === 'metal3machines').map((r) => `${r.verb} ${r.path.split('/').at(-1)} ${JSON.stringify(r.body)}`);
  const recorded = async () => {
    await events.flush();
    return requests.filter((r: HttpRequest) => r.resource === 'events').map((r) => {
      const e = r.body as Event;
      return `${e.type} ${e.reason} ${e.involvedObject.kind}/${e.involvedObject.name}: ${e.message}`;
    });
  };
  return { run, requests, patches, recorded };
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the reconcile to fail');
}

test('T-4: a template that is gone is done, nothing written', async () => {
  const s = setup({ templates: [], machines: [machine('a')] });
  assert.equal(await s.run(), {});
  assert.is(s.requests.length, 0);
});

test('issue 21: every field of the shared Metal3MachineTemplate table naming another namespace is a Warning on the template, naming it; cleaning mode still propagates', async () => {
  for (const path of REFERENCE_FIELDS.Metal3MachineTemplate) {
    const s = setup({ templates: [withReferenceAt(template('tmpl', { mode: 'disabled' }), path, 'tenant-b')], machines: [machine('a')] });
    assert.equal(await s.run(), {}, path);
    const [event] = await s.recorded();
    assert.match(
      event ?? '',
      `Warning InvalidReference Metal3MachineTemplate/tmpl: ${path}.namespace ("tenant-b"): must be empty or the Metal3MachineTemplate namespace "ns"`,
      path,
    );
    assert.is(s.patches().length, 1, `${path}: the cleaning mode patch`);
  }
});

test('T-5: a paused template is done without a requeue and writes nothing, even with machines out of sync', async () => {
  const s = setup({ templates: [template('tmpl', { mode: 'disabled', annotations: { 'cluster.x-k8s.io/paused': '' } })], machines: [machine('a')] });
  assert.equal(await s.run(), {});
  assert.is(s.requests.length, 0);
});

test('E-35: zero requests when every machine of the template already has its mode', async () => {
  const s = setup({ templates: [template('tmpl', { mode: 'disabled' })], machines: [machine('a', { mode: 'disabled' }), machine('b', { mode: 'disabled' })] });
  assert.equal(await s.run(), {});
  assert.is(s.requests.length, 0);
});

test('T-6: one merge patch of spec.automatedCleaningMode per machine that differs, and a Normal event on it', async () => {
  const s = setup({
    templates: [template('tmpl', { mode: 'disabled' })],
    machines: [machine('a'), machine('b', { mode: 'metadata' }), machine('c', { mode: 'disabled' })],
  });
  assert.equal(await s.run(), {});
  assert.equal(s.patches(), ['patch a {"spec":{"automatedCleaningMode":"disabled"}}', 'patch b {"spec":{"automatedCleaningMode":"disabled"}}']);
  assert.equal(await s.recorded(), [
    'Normal AutomatedCleaningModeUpdated Metal3Machine/a: automatedCleaningMode set to "disabled" (was unset) from Metal3MachineTemplate tmpl',
    'Normal AutomatedCleaningModeUpdated Metal3Machine/b: automatedCleaningMode set to "disabled" (was "metadata") from Metal3MachineTemplate tmpl',
  ]);
});

test('bad input: an unknown mode is a terminal error with a Warning event naming the field; no machine is written', async () => {
  const s = setup({ templates: [template('tmpl', { mode: 'erase' })], machines: [machine('a')] });
  const error = await rejection(s.run());
  assert.instance(error, InvalidCleaningModeError);
  assert.ok(isTerminalError(error), 'not retried');
  assert.equal(s.patches(), []);
  assert.equal(await s.recorded(), [
    'Warning InvalidAutomatedCleaningMode Metal3MachineTemplate/tmpl: spec.template.spec.automatedCleaningMode: Unsupported value: "erase": supported values: "metadata", "disabled"',
  ]);
});

test('a machine deleted meanwhile (404) is skipped; a machine that rejects the value (422) gets a Warning on the template and a terminal error', async () => {
  const s = setup(
    { templates: [template('tmpl', { mode: 'disabled' })], machines: [machine('a'), machine('gone'), machine('strict')] },
    (name) => name === 'gone' ? 404 : name === 'strict' ? 422 : 'ok',
  );
  const error = await rejection(s.run());
  assert.instance(error, CleaningModeRejectedError);
  assert.ok(isTerminalError(error));
  assert.equal((error as CleaningModeRejectedError).machines, ['strict']);
  assert.is(s.patches().length, 3, 'every machine was tried');
  const events = await s.recorded();
  assert.ok(
    events.includes(
      'Warning AutomatedCleaningModeRejected Metal3MachineTemplate/tmpl: Metal3Machine strict rejected automatedCleaningMode "disabled": scripted 422 for strict',
    ),
    events.join('\n'),
  );
  assert.ok(events.some((e) => e.startsWith('Normal AutomatedCleaningModeUpdated Metal3Machine/a:')));
});

test('other write failures (500, 403) are retried: a non-terminal error naming the machines, after trying all of them', async () => {
  const s = setup(
    { templates: [template('tmpl', { mode: 'metadata' })], machines: [machine('a'), machine('b'), machine('c'), machine('d')] },
    (name) => name === 'b' ? 500 : name === 'c' ? 403 : name === 'd' ? 422 : 'ok',
  );
  const error = await rejection(s.run());
  assert.instance(error, MachineUpdateError);
  assert.not.ok(isTerminalError(error), 'retried with backoff');
  assert.match(error.message, /^failed to update metal3Machine: b, c: /);
  assert.is(s.patches().length, 4);
});

test.run();
