// Issue 21 point 0: whose a Secret of a rendered name is (only the controller uid makes it ours).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newSecret, type Secret } from '@metal3-ts/generated/core/v1';
import { data, DATA_UID, NS } from '../testing.ts';
import { conflictMessage, secretOwnership } from './secret-ownership.ts';

const test = suite('rendered Secret ownership');
const infra = 'infrastructure.cluster.x-k8s.io/v1beta1';

const secret = (ownerReferences: Secret['metadata']['ownerReferences'], deleting = false): Secret =>
  newSecret({
    metadata: {
      name: 'm3m-metadata',
      namespace: NS,
      uid: 'secret-uid',
      ...(ownerReferences ? { ownerReferences } : {}),
      ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
  });
const dataRef = (uid: string, controller = true) => ({
  apiVersion: infra,
  kind: 'Metal3Data',
  name: 'tmpl-0',
  uid,
  ...(controller ? { controller: true } : {}),
});

test('absent: Missing; controlled by this uid: Ours', () => {
  assert.equal(secretOwnership(undefined, data()), { kind: 'Missing' });
  assert.equal(secretOwnership(secret([dataRef(DATA_UID)]), data()), { kind: 'Ours' });
});

test('issue 21: a Metal3Data of the same name but another uid is a former one (a leftover candidate, judged by uid in the cache)', () => {
  const owner = dataRef('old-uid');
  assert.equal(secretOwnership(secret([owner]), data()), { kind: 'FormerData', owner });
  assert.equal(secretOwnership(secret([owner], true), data()), { kind: 'FormerData', owner });
  const otherVersion = { ...owner, apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2' };
  assert.equal(secretOwnership(secret([otherVersion]), data()), { kind: 'FormerData', owner: otherVersion }, 'any version of the group');
});

test('issue 21: no controller, a non-controller reference to us, or another kind controlling it: Foreign, never ours', () => {
  assert.equal(secretOwnership(secret(undefined), data()), { kind: 'Foreign', reason: 'it is not controlled by this Metal3Data (no controller)' });
  assert.is(secretOwnership(secret([dataRef(DATA_UID, false)]), data()).kind, 'Foreign', 'a plain owner reference is not control');
  const other = { apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'x-uid', controller: true };
  assert.equal(secretOwnership(secret([other]), data()), { kind: 'Foreign', reason: 'it is not controlled by this Metal3Data (ConfigMap x)' });
  assert.is(secretOwnership(secret([dataRef(DATA_UID)]), data((d) => delete d.metadata.uid)).kind, 'FormerData', 'a Metal3Data without uid owns nothing');
});

test('the message names the Secret and what to do', () => {
  assert.is(
    conflictMessage('s', 'it is x'),
    "Secret s already exists and it is x: it is not used as this Metal3Data's; remove it to let the Secret be rendered",
  );
});

test.run();
