import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hostV1ConfigTypeId, interceptV1ConfigTypeId } from './builtin-config-types.ts';
import { allConfigTypes } from './config-commands.ts';
import { configTables, type Config, type ConfigType } from './config-entities.ts';
import { ModelStateMachine, type AppliedChanges } from './model-state-machine.ts';
import { openTestModel, openTestStore } from './model-test-harness.ts';
import { serviceTables, type Service } from './service-entities.ts';

async function openModel() {
  const applied: AppliedChanges[] = [];
  const model = await openTestModel({ prefix: 'edgeward-configs-', beforeStart: (machine) => machine.onChanges((changes) => applied.push(changes)) });
  return { ...model, applied };
}

const at = '2026-01-01T00:00:00.000Z';
const later = '2026-01-02T00:00:00.000Z';
const base = (id: string) => ({ id, createdAt: at, updatedAt: at, tags: {} });
const hostData = { protocol: 'tcp', address: 'localhost', port: 8080 };
const config = (id: string, configTypeId: string = hostV1ConfigTypeId, data: Record<string, unknown> = hostData): Config => ({ ...base(id), name: id, configTypeId, data });
const configType = (id: string, schema: Record<string, unknown> = {}): ConfigType => ({ ...base(id), name: id, schema, target: 'service' });
const service = (id: string, configs: string[] = []): Service => ({ ...base(id), name: id, encryptionRequired: true, configs, roleAttributes: [], terminatorStrategy: 'smartrouting', maxIdleTimeMillis: 0 });

test('host.v1 and intercept.v1 exist from the start, under the real controller ids, and cannot be deleted', async () => {
  const model = await openModel();
  const types = allConfigTypes(model.store.table<ConfigType>(configTables.configTypes));
  assert.deepEqual(types.map((type) => [type.id, type.name]).sort(), [[hostV1ConfigTypeId, 'host.v1'], [interceptV1ConfigTypeId, 'intercept.v1']].sort());
  const refused = await model.apply({ type: 'configType.delete', id: hostV1ConfigTypeId });
  assert.equal(!refused.ok && refused.error.code, 'ENTITY_CAN_NOT_BE_DELETED');
  const renamed = await model.apply({ type: 'configType.update', id: hostV1ConfigTypeId, at, configType: { ...configType('x'), name: 'host.v9' } });
  assert.deepEqual(!renamed.ok && renamed.error, { code: 'COULD_NOT_VALIDATE', cause: { field: 'name', reason: 'host.v1 is a built-in config type: only its tags can change' } });
  const clash = await model.apply({ type: 'configType.create', configType: { ...configType('mine'), name: 'intercept.v1' } });
  assert.equal(!clash.ok && clash.error.cause && (clash.error.cause as { field: string }).field, 'name');
});

test('a config whose data breaks its type schema is refused with the field path, and nothing is stored', async () => {
  const model = await openModel();
  const refused = await model.apply({ type: 'config.create', config: config('c', hostV1ConfigTypeId, { protocol: 'tcp', address: 'localhost', port: 70000 }) });
  assert.deepEqual(!refused.ok && refused.error, { code: 'COULD_NOT_VALIDATE', cause: { field: 'data.port', reason: 'data.port must be <= 65535 (config type host.v1)', value: 70000 } });
  const unknownType = await model.apply({ type: 'config.create', config: config('c', 'no-such-type') });
  assert.equal(!unknownType.ok && (unknownType.error.cause as { field: string }).field, 'configTypeId');
  assert.equal(model.store.table(configTables.configs).size, 0);
  await model.ok({ type: 'config.create', config: config('c') });
  const badUpdate = await model.apply({ type: 'config.update', id: 'c', at, config: { name: 'c', tags: {}, data: { protocol: 'tcp' } } });
  assert.equal(!badUpdate.ok && (badUpdate.error.cause as { field: string }).field, 'data.address');
  assert.deepEqual(model.store.table<Config>(configTables.configs).get('c')?.data, hostData);
});

test('a config type with configs cannot be deleted; without them it can', async () => {
  const model = await openModel();
  await model.ok({ type: 'configType.create', configType: configType('t') });
  await model.ok({ type: 'config.create', config: config('c1', 't', { any: 1 }) });
  const refused = await model.apply({ type: 'configType.delete', id: 't' });
  assert.deepEqual(!refused.ok && refused.error, { code: 'CAN_NOT_DELETE_REFERENCED_ENTITY', cause: { field: 'configs', reason: 'cannot delete config type t, as configs of that type exist', value: ['c1'] } });
  await model.ok({ type: 'config.delete', id: 'c1', at });
  await model.ok({ type: 'configType.delete', id: 't' });
});

test('a service carries existing configs, one per type; deleting a config takes it off its services', async () => {
  const model = await openModel();
  await model.ok({ type: 'config.create', config: config('host-a') });
  await model.ok({ type: 'config.create', config: config('host-b') });
  await model.ok({ type: 'config.create', config: config('intercept', interceptV1ConfigTypeId, { protocols: ['tcp'], addresses: ['web.ziti'], portRanges: [{ low: 80, high: 80 }] }) });
  const missing = await model.apply({ type: 'service.create', service: service('s', ['host-a', 'ghost']) });
  assert.deepEqual(!missing.ok && missing.error, { code: 'COULD_NOT_VALIDATE', cause: { field: 'configs', reason: 'no configs found with the given ids', value: ['ghost'] } });
  const twice = await model.apply({ type: 'service.create', service: service('s', ['host-a', 'host-b']) });
  assert.match(!twice.ok ? (twice.error.cause as { reason: string }).reason : '', /duplicate configs named host-a and host-b found for config type host\.v1/);
  await model.ok({ type: 'service.create', service: service('s', ['host-a', 'intercept']) });

  model.applied.length = 0;
  await model.ok({ type: 'config.delete', id: 'host-a', at: later });
  const stored = model.store.table<Service>(serviceTables.services).get('s')!;
  assert.deepEqual(stored.configs, ['intercept']);
  assert.equal(stored.updatedAt, later);
  const changes = model.applied.flatMap((entry) => entry.changes.map((change) => [change.eventType, change.entityType, change.id]));
  assert.deepEqual(changes, [['updated', 'services', 's'], ['deleted', 'configs', 'host-a']], 'one command, one raft index: the service update and the config delete');
});

test('configs and operator config types survive a snapshot and restore', async () => {
  const model = await openModel();
  await model.ok({ type: 'configType.create', configType: configType('mine', { type: 'object', required: ['url'] }) });
  await model.ok({ type: 'config.create', config: config('c', 'mine', { url: 'https://example.com' }) });
  await model.ok({ type: 'configType.update', id: hostV1ConfigTypeId, at: later, configType: { ...allConfigTypes(model.store.table<ConfigType>(configTables.configTypes)).find((type) => type.id === hostV1ConfigTypeId)!, tags: { team: 'edge' } } });
  const snapshot = JSON.parse(JSON.stringify(model.machine.snapshot()));

  const { store } = await openTestStore({ prefix: 'edgeward-configs-restore-' });
  await new ModelStateMachine(store).restore(snapshot, 42);
  assert.deepEqual(store.table<Config>(configTables.configs).get('c')?.data, { url: 'https://example.com' });
  const types = allConfigTypes(store.table<ConfigType>(configTables.configTypes));
  assert.deepEqual(types.map((type) => type.name).sort(), ['host.v1', 'intercept.v1', 'mine']);
  assert.deepEqual(types.find((type) => type.id === hostV1ConfigTypeId)?.tags, { team: 'edge' });
});
