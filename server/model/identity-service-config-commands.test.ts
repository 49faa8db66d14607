import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hostV1ConfigTypeId, interceptV1ConfigTypeId } from './builtin-config-types.ts';
import type { ModelCommand } from './commands.ts';
import type { Config, ConfigType } from './config-entities.ts';
import { type Identity } from './entities.ts';
import { identityServiceConfigTables, type IdentityServiceConfig } from './identity-service-config-entities.ts';
import { openTestModel } from './model-test-harness.ts';
import type { Service } from './service-entities.ts';

const at = '2026-01-01T00:00:00.000Z';
const later = '2026-01-02T00:00:00.000Z';
const base = (id: string) => ({ id, createdAt: at, updatedAt: at, tags: {} });
const identity = (id: string): Identity => ({
  ...base(id), name: id, typeId: 'Default', isAdmin: false, isDefaultAdmin: false, authPolicyId: 'default', externalId: null, roleAttributes: [], disabledAt: null, disabledUntil: null,
});
const service = (id: string, configs: string[] = []): Service => ({ ...base(id), name: id, encryptionRequired: true, configs, roleAttributes: [], terminatorStrategy: 'smartrouting', maxIdleTimeMillis: 0 });
const hostData = (port: number) => ({ protocol: 'tcp', address: 'localhost', port });
const config = (id: string, configTypeId: string, data: Record<string, unknown>): Config => ({ ...base(id), name: id, configTypeId, data });

async function openModel() {
  const { store, apply, ok } = await openTestModel({ prefix: 'edgeward-identity-configs-' });
  const rows = () =>
    store
      .table<IdentityServiceConfig>(identityServiceConfigTables.identityServiceConfigs)
      .all()
      .map((row) => `${row.identityId} ${row.serviceId} ${row.configTypeId === hostV1ConfigTypeId ? 'host.v1' : row.configTypeId === interceptV1ConfigTypeId ? 'intercept.v1' : row.configTypeId} ${row.configId}`)
      .sort();
  await ok({ type: 'identity.create', identity: identity('alice') });
  await ok({ type: 'identity.create', identity: identity('bob') });
  await ok({ type: 'config.create', config: config('host-a', hostV1ConfigTypeId, hostData(1)) });
  await ok({ type: 'config.create', config: config('host-b', hostV1ConfigTypeId, hostData(2)) });
  await ok({ type: 'config.create', config: config('icpt', interceptV1ConfigTypeId, { protocols: ['tcp'], addresses: ['echo.ziti'], portRanges: [{ low: 80, high: 80 }] }) });
  await ok({ type: 'configType.create', configType: { ...base('rtype'), name: 'router.v1', schema: {}, target: 'router' } as ConfigType });
  await ok({ type: 'config.create', config: config('for-routers', 'rtype', {}) });
  await ok({ type: 'service.create', service: service('echo', ['host-a']) });
  await ok({ type: 'service.create', service: service('web') });
  return { store, apply, ok, rows };
}

test('assigning keeps one config per identity, service and config type: another of the same type replaces it', async () => {
  const model = await openModel();
  await model.ok({ type: 'identityServiceConfig.assign', identityId: 'alice', at, pairs: [{ serviceId: 'echo', configId: 'host-a' }, { serviceId: 'echo', configId: 'icpt' }, { serviceId: 'web', configId: 'host-a' }] });
  assert.deepEqual(model.rows(), ['alice echo host.v1 host-a', 'alice echo intercept.v1 icpt', 'alice web host.v1 host-a']);
  await model.ok({ type: 'identityServiceConfig.assign', identityId: 'alice', at: later, pairs: [{ serviceId: 'echo', configId: 'host-b' }] });
  assert.deepEqual(model.rows(), ['alice echo host.v1 host-b', 'alice echo intercept.v1 icpt', 'alice web host.v1 host-a']);
  const replaced = model.store.table<IdentityServiceConfig>(identityServiceConfigTables.identityServiceConfigs).all().find((row) => row.configId === 'host-b')!;
  assert.deepEqual([replaced.createdAt, replaced.updatedAt], [at, later]);
});

test('a bad pair refuses the whole request and changes nothing', async () => {
  const model = await openModel();
  await model.ok({ type: 'identityServiceConfig.assign', identityId: 'alice', at, pairs: [{ serviceId: 'echo', configId: 'icpt' }] });
  const good = { serviceId: 'web', configId: 'host-a' };
  const cases: Array<[ModelCommand, unknown]> = [
    [{ type: 'identityServiceConfig.assign', identityId: 'nobody', at, pairs: [good] }, { code: 'NOT_FOUND', cause: { code: 'UNHANDLED', message: 'identity with id nobody not found' } }],
    [{ type: 'identityServiceConfig.assign', identityId: 'alice', at, pairs: [good, { serviceId: 'gone', configId: 'host-a' }] }, { code: 'NOT_FOUND', cause: { field: 'serviceId', reason: 'service with id gone not found', value: 'gone' } }],
    [{ type: 'identityServiceConfig.assign', identityId: 'alice', at, pairs: [good, { serviceId: 'echo', configId: 'gone' }] }, { code: 'NOT_FOUND', cause: { field: 'configId', reason: 'config with id gone not found', value: 'gone' } }],
    [
      { type: 'identityServiceConfig.assign', identityId: 'alice', at, pairs: [good, { serviceId: 'echo', configId: 'for-routers' }] },
      { code: 'COULD_NOT_VALIDATE', cause: { field: 'configId', reason: 'config for-routers has config type router.v1 which does not target services', value: 'for-routers' } },
    ],
    [
      { type: 'identityServiceConfig.assign', identityId: 'alice', at, pairs: [{ serviceId: 'echo', configId: 'host-a' }, { serviceId: 'echo', configId: 'host-b' }] },
      { code: 'COULD_NOT_VALIDATE', cause: { field: 'configId', reason: 'configs host-a and host-b are both of config type host.v1 for service echo: only one config of a type per service', value: 'host-b' } },
    ],
    [{ type: 'identityServiceConfig.remove', identityId: 'alice', pairs: [{ serviceId: 'echo', configId: 'icpt' }, { serviceId: 'echo', configId: 'gone' }] }, { code: 'NOT_FOUND', cause: { field: 'configId', reason: 'config with id gone not found', value: 'gone' } }],
  ];
  for (const [command, expected] of cases) {
    const result = await model.apply(command);
    assert.deepEqual(result.ok ? 'applied' : result.error, expected, JSON.stringify(command));
    assert.deepEqual(model.rows(), ['alice echo intercept.v1 icpt'], 'nothing changed');
  }
});

test('removing takes off only the pairs named while that config is the one assigned; an empty list takes off all', async () => {
  const model = await openModel();
  const pairs = [{ serviceId: 'echo', configId: 'host-a' }, { serviceId: 'echo', configId: 'icpt' }, { serviceId: 'web', configId: 'host-a' }];
  await model.ok({ type: 'identityServiceConfig.assign', identityId: 'alice', at, pairs });
  await model.ok({ type: 'identityServiceConfig.assign', identityId: 'bob', at, pairs });
  await model.ok({ type: 'identityServiceConfig.remove', identityId: 'alice', pairs: [{ serviceId: 'echo', configId: 'host-b' }, { serviceId: 'web', configId: 'host-a' }] });
  assert.deepEqual(model.rows(), ['alice echo host.v1 host-a', 'alice echo intercept.v1 icpt', 'bob echo host.v1 host-a', 'bob echo intercept.v1 icpt', 'bob web host.v1 host-a']);
  await model.ok({ type: 'identityServiceConfig.remove', identityId: 'alice', pairs: [] });
  assert.deepEqual(model.rows(), ['bob echo host.v1 host-a', 'bob echo intercept.v1 icpt', 'bob web host.v1 host-a']);
});

test('deleting an identity or a service removes its pairs; a config in use cannot be deleted until it is removed', async () => {
  const model = await openModel();
  await model.ok({ type: 'identityServiceConfig.assign', identityId: 'alice', at, pairs: [{ serviceId: 'echo', configId: 'icpt' }, { serviceId: 'web', configId: 'host-b' }] });
  await model.ok({ type: 'identityServiceConfig.assign', identityId: 'bob', at, pairs: [{ serviceId: 'echo', configId: 'host-b' }] });
  const refused = await model.apply({ type: 'config.delete', id: 'host-b', at });
  assert.deepEqual(!refused.ok && refused.error, {
    code: 'CAN_NOT_DELETE_REFERENCED_ENTITY',
    cause: { field: 'identityServiceConfigs', reason: 'config is in use by identity alice for service web', value: [{ identityId: 'alice', serviceId: 'web' }, { identityId: 'bob', serviceId: 'echo' }] },
  });
  await model.ok({ type: 'service.delete', id: 'web' });
  assert.deepEqual(model.rows(), ['alice echo intercept.v1 icpt', 'bob echo host.v1 host-b']);
  await model.ok({ type: 'identity.delete', id: 'bob' });
  assert.deepEqual(model.rows(), ['alice echo intercept.v1 icpt']);
  await model.ok({ type: 'config.delete', id: 'host-b', at });
  await model.ok({ type: 'identityServiceConfig.delete', ids: ['alice/echo/' + interceptV1ConfigTypeId, 'never-was'] });
  assert.deepEqual(model.rows(), []);
});
