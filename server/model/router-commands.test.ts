import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ModelCommand } from './commands.ts';
import { openTestModel } from './model-test-harness.ts';
import { routerTables, type EdgeRouter } from './router-entities.ts';

async function openModel() {
  const model = await openTestModel({ prefix: 'edgeward-routers-' });
  const row = (id: string) => model.store.table<EdgeRouter>(routerTables.edgeRouters).get(id);
  return { ...model, row };
}

const at = '2026-01-01T00:00:00.000Z';
const later = '2026-01-01T01:00:00.000Z';
const expires = '2026-01-01T03:00:00.000Z';
const router = (id: string, changes: Partial<EdgeRouter> = {}): EdgeRouter => ({
  id, createdAt: at, updatedAt: at, tags: {}, name: id, roleAttributes: [], isTunnelerEnabled: false, cost: 0, noTraversal: false, disabled: false, appData: {},
  isVerified: false, fingerprint: null, certPem: null, enrollmentToken: `token-${id}`, enrollmentJwt: 'jwt', enrollmentCreatedAt: at, enrollmentExpiresAt: expires, ...changes,
});
const enroll = (id: string, token: string, when = later, fingerprint = `fp-${id}`, server: { serverFingerprint?: string; serverNames?: string[] } = {}): ModelCommand => ({
  type: 'edgeRouter.enroll',
  id,
  token,
  at: when,
  fingerprint,
  certPem: 'pem',
  ...server,
});

test('enrolling uses the token up: the fingerprint is stored and the enrollment fields are cleared', async () => {
  const { ok, apply, row } = await openModel();
  await ok({ type: 'edgeRouter.create', router: router('r1') });
  await ok(enroll('r1', 'token-r1'));
  const enrolled = row('r1')!;
  assert.equal(enrolled.isVerified, true);
  assert.equal(enrolled.fingerprint, 'fp-r1');
  assert.deepEqual([enrolled.enrollmentToken, enrolled.enrollmentJwt, enrolled.enrollmentCreatedAt, enrolled.enrollmentExpiresAt], [null, null, null, null]);
  assert.equal(enrolled.updatedAt, later);
  const again = await apply(enroll('r1', 'token-r1'));
  assert.equal(again.ok, false);
  assert.equal((again as { error: { code: string } }).error.code, 'INVALID_ENROLLMENT_TOKEN', 'two redemptions in log order: the second fails');
});

test('a wrong or expired token is refused in log order and changes nothing', async () => {
  const { ok, apply, row } = await openModel();
  await ok({ type: 'edgeRouter.create', router: router('r1') });
  for (const command of [enroll('r1', 'other-token'), enroll('r1', 'token-r1', expires), enroll('nobody', 'token-r1')]) {
    const result = await apply(command);
    assert.equal(result.ok, false);
    assert.equal((result as { error: { code: string } }).error.code, 'INVALID_ENROLLMENT_TOKEN');
  }
  assert.equal(row('r1')!.isVerified, false);
  assert.equal(row('r1')!.enrollmentToken, 'token-r1');
});

test('re-enrolling forgets the certificate and opens a new enrollment; the old token stays dead', async () => {
  const { ok, apply, row } = await openModel();
  await ok({ type: 'edgeRouter.create', router: router('r1') });
  await ok(enroll('r1', 'token-r1'));
  await ok({ type: 'edgeRouter.reEnroll', id: 'r1', at: later, enrollment: { token: 'new-token', jwt: 'new-jwt', createdAt: later, expiresAt: expires } });
  const reopened = row('r1')!;
  assert.equal(reopened.isVerified, false);
  assert.equal(reopened.fingerprint, null);
  assert.equal(reopened.enrollmentToken, 'new-token');
  assert.equal((await apply(enroll('r1', 'token-r1'))).ok, false);
  await ok(enroll('r1', 'new-token', later, 'fp-new'));
  assert.equal(row('r1')!.fingerprint, 'fp-new');
});

test('names and fingerprints are unique; update and delete need the router', async () => {
  const { ok, apply, row } = await openModel();
  await ok({ type: 'edgeRouter.create', router: router('r1') });
  const clash = await apply({ type: 'edgeRouter.create', router: router('r2', { name: 'r1' }) });
  assert.equal(clash.ok, false);
  assert.equal((clash as { error: { code: string; cause: { field: string } } }).error.cause.field, 'name');
  await ok({ type: 'edgeRouter.create', router: router('r2') });
  await ok(enroll('r1', 'token-r1', later, 'same'));
  assert.equal((await apply(enroll('r2', 'token-r2', later, 'same'))).ok, false, 'one certificate belongs to one router');
  const settings = { name: 'renamed', roleAttributes: ['x'], isTunnelerEnabled: true, cost: 5, noTraversal: true, disabled: true, appData: { a: 1 }, tags: { t: 1 } };
  await ok({ type: 'edgeRouter.update', id: 'r1', at: later, settings });
  assert.equal(row('r1')!.name, 'renamed');
  assert.equal(row('r1')!.disabled, true);
  assert.equal(row('r1')!.fingerprint, 'same', 'an update keeps the enrollment');
  const missing = await apply({ type: 'edgeRouter.update', id: 'nope', at: later, settings });
  assert.equal((missing as { error: { code: string } }).error.code, 'NOT_FOUND');
  await ok({ type: 'edgeRouter.delete', id: 'r1' });
  assert.equal(row('r1'), undefined);
  assert.equal(((await apply({ type: 'edgeRouter.delete', id: 'r1' })) as { error: { code: string } }).error.code, 'NOT_FOUND');
});

test("in log order, a server certificate name already on another router's certificate is refused and changes nothing", async () => {
  const { ok, apply, row } = await openModel();
  for (const id of ['r1', 'r2']) await ok({ type: 'edgeRouter.create', router: router(id) });
  await ok(enroll('r1', 'token-r1', later, 'fp-r1', { serverFingerprint: 'sfp-r1', serverNames: ['DNS:r.example.test', 'IP:203.0.113.1'] }));
  assert.deepEqual(row('r1')!.serverNames, ['DNS:r.example.test', 'IP:203.0.113.1']);
  assert.equal(row('r1')!.serverFingerprint, 'sfp-r1');
  const clash = await apply(enroll('r2', 'token-r2', later, 'fp-r2', { serverNames: ['DNS:r2.example.test', 'IP:203.0.113.1'] }));
  assert.deepEqual(clash, {
    ok: false,
    error: { code: 'COULD_NOT_PROCESS_CSR', cause: { field: 'serverCertCsr', reason: '"203.0.113.1" is already on another edge router\'s server certificate', value: '203.0.113.1' } },
  });
  assert.equal(row('r2')!.isVerified, false);
  assert.equal(row('r2')!.enrollmentToken, 'token-r2', 'the token is not used up');
  // Re-enrolling r1 frees its names.
  await ok({ type: 'edgeRouter.reEnroll', id: 'r1', at: later, enrollment: { token: 'new-token', jwt: 'new-jwt', createdAt: later, expiresAt: expires } });
  assert.equal(row('r1')!.serverNames, null);
  await ok(enroll('r2', 'token-r2', later, 'fp-r2', { serverNames: ['IP:203.0.113.1'] }));
});
