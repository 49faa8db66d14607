// Controller settings as the domain reads them: effective = the controller's own setting where it sets one, else
// the global one, else empty; validation refuses bad URIs, unknown controllers and a second row, changing nothing.
// Revocation limits: a full table refuses new revocations; pruning is one bounded command.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../common/time/clock.ts';
import { openTestModel } from '../model/model-test-harness.ts';
import { ControllerSettingsService } from './controller-settings.ts';
import { EdgeError } from './edge-error.ts';
import { ModelWriter } from './model-writer.ts';
import { RevocationService } from './revocation-service.ts';

async function model() {
  const { store, node } = await openTestModel({ prefix: 'edgeward-settings-' });
  return { store, writer: new ModelWriter(node), clock: new ManualClock() };
}

const refusedField = async (write: Promise<unknown>) => {
  const error = await write.then(() => undefined, (caught: unknown) => caught);
  assert.ok(error instanceof EdgeError, `refused: ${String(error)}`);
  return `${error.code} ${(error.cause as { field?: string } | undefined)?.field ?? ''}`;
};

test('effective settings: the controller\'s own list where it sets one, else the global one, else empty', async () => {
  const { store, writer, clock } = await model();
  const settings = new ControllerSettingsService(store, writer, clock);
  assert.deepEqual(settings.effective('ctrl1'), { oidc: { redirectUris: [], postLogoutUris: [] } }, 'nothing written: empty');
  assert.deepEqual(settings.list().map((row) => [row.id, row.createdAt]), [['global', '1970-01-01T00:00:00.000Z']]);
  await settings.update('global', { oidc: { redirectUris: ['openziti://auth/callback'], postLogoutUris: ['https://a.example/bye'] } }, 'put');
  await settings.create('ctrl2', { oidc: { redirectUris: ['https://console.example/cb', 'https://console.example/cb'] } }, ['ctrl1', 'ctrl2']);
  assert.deepEqual(settings.effective('ctrl1'), { oidc: { redirectUris: ['openziti://auth/callback'], postLogoutUris: ['https://a.example/bye'] } }, 'no row: global');
  assert.deepEqual(settings.effective('ctrl2'), { oidc: { redirectUris: ['https://console.example/cb'], postLogoutUris: ['https://a.example/bye'] } }, 'merged, duplicates dropped');
  await settings.update('ctrl2', { oidc: { postLogoutUris: [] } }, 'patch');
  assert.deepEqual(settings.effective('ctrl2'), { oidc: { redirectUris: ['https://console.example/cb'], postLogoutUris: [] } }, 'an empty own list is set, not inherited');
  await settings.update('ctrl2', {}, 'put');
  assert.deepEqual(settings.effective('ctrl2'), settings.effective('ctrl1'), 'a PUT without oidc inherits everything');
  assert.notEqual(settings.get('global').createdAt, '1970-01-01T00:00:00.000Z', 'the global row is stamped when first written');
});

test('controller settings validation: bad URIs, unknown controllers and second rows are refused and change nothing', async () => {
  const { store, writer, clock } = await model();
  const settings = new ControllerSettingsService(store, writer, clock);
  await settings.create('ctrl1', {}, ['ctrl1']);
  assert.equal(await refusedField(settings.update('global', { oidc: { redirectUris: ['no scheme here'] } }, 'put')), 'COULD_NOT_VALIDATE oidc.redirectUris[0]');
  assert.equal(await refusedField(settings.update('global', { oidc: { postLogoutUris: ['https://a.example/', 'https://a.example/#x'] } }, 'patch')), 'COULD_NOT_VALIDATE oidc.postLogoutUris[1]');
  assert.equal(await refusedField(settings.update('global', { oidc: { redirectUris: Array.from({ length: 101 }, (_, i) => `https://a.example/${i}`) } }, 'put')), 'COULD_NOT_VALIDATE oidc.redirectUris');
  assert.equal(await refusedField(settings.create('ctrl9', {}, ['ctrl1'])), 'COULD_NOT_VALIDATE controllerId');
  assert.equal(await refusedField(settings.create('ctrl1', {}, ['ctrl1'])), 'COULD_NOT_VALIDATE controllerId');
  assert.equal(await refusedField(settings.delete('global')), 'CAN_NOT_DELETE_REFERENCED_ENTITY id');
  await settings.update('global', { oidc: { redirectUris: ['http://localhost:*/auth/callback', 'http://127.0.0.1:*'] } }, 'put');
  assert.deepEqual(settings.effective('ctrl1').oidc.redirectUris, ['http://localhost:*/auth/callback', 'http://127.0.0.1:*'], 'a port of * is allowed');
});

test('revocations: past maxRevocations a new one is refused; pruning removes expired ones in one bounded command', async () => {
  const { store, writer, clock } = await model();
  const revocations = new RevocationService(store, writer, clock, { lifetimeMs: 60_000, maxRevocations: 3, pruneBatch: 2 });
  const id = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;
  for (let n = 0; n < 3; n++) await revocations.create({ id: id(n), type: 'JTI', tags: {} });
  assert.equal(await refusedField(revocations.create({ id: id(3), type: 'JTI', tags: {} })), 'COULD_NOT_VALIDATE id');
  await revocations.create({ id: id(0), type: 'JTI', tags: { again: true } });
  assert.equal(revocations.isRevoked('JTI', id(0)), true);
  assert.equal(await revocations.prune(), 0, 'nothing expired: no command');
  clock.advance(60_000);
  assert.equal(revocations.isRevoked('JTI', id(0)), false, 'an expired revocation no longer holds');
  assert.equal(await revocations.prune(), 2);
  assert.equal(await revocations.prune(), 1);
  assert.equal(revocations.list().length, 0);
  await revocations.create({ id: id(3), type: 'JTI', tags: {} });
});
