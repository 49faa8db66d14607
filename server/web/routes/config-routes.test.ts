// Config types and configs over HTTPS against an in-process controller: the built-in host.v1 and intercept.v1, a
// host.v1 config attached to a service and shown to a client that asked for host.v1, refusals with the field path,
// a config type in use that cannot be deleted, entity change events, and configs that outlive a restart.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { silentLogger } from '../../../common/log/logger.ts';
import { ManualClock } from '../../../common/time/clock.ts';
import { freePort } from '../../../test/support/free-port.ts';
import { HttpsClient } from '../../../test/support/https-client.ts';
import { defaultRaftOptions } from '../../controller/controller-options.ts';
import { startController, type RunningController } from '../../controller/controller.ts';
import { controllerPaths, initPki, issueControllerCertificate, pkiPaths } from '../../../common/pki/pki-directory.ts';
import { currentVersion } from '../../../common/version/version-info.ts';

const clock = new ManualClock(Date.UTC(2026, 3, 1, 12));
const hostV1 = 'NH5p4FpGR';
const interceptV1 = 'g7cIWbcGg';
let root: string;
let controller: RunningController;
let http: HttpsClient;
let port: number;
let ctrlPort: number;
let tls: { certPem: string; keyPem: string; caPem: string };
let admin: { 'zt-session': string };

async function start(options: { initialize: boolean }): Promise<RunningController> {
  const running = await startController(
    {
      id: 'configs',
      dataDir: join(root, 'data'),
      raft: defaultRaftOptions,
      cluster: {
        address: `tls:127.0.0.1:${ctrlPort}`,
        listen: { host: '127.0.0.1', port: ctrlPort },
        trustDomain: 'edgeward.test',
        preferredLeader: false,
        warnWhenLeaderlessForMs: 60_000,
        heartbeat: { sendIntervalMs: 10_000, checkIntervalMs: 1000, closeUnresponsiveTimeoutMs: 30_000 },
        tls,
      },
      webs: [{ name: 'api', bindPoints: [{ interfaceHost: '127.0.0.1', interfacePort: port, address: `127.0.0.1:${port}` }], apis: ['edge-client', 'edge-management'], tls, maxBodyBytes: 1 << 20, idleTimeoutMs: 5000, readTimeoutMs: 5000, writeTimeoutMs: 100_000, requestTimeoutMs: 30_000, handshakeTimeoutMs: 10_000, maxConnections: 4096, minTlsVersion: 'TLSv1.2', maxTlsVersion: 'TLSv1.3' }],
      sessionTimeoutMs: 30 * 60_000,
      activityUpdateIntervalMs: 3_600_000,
      activityUpdateBatchSize: 250,
      events: [{ name: 'changes', subscriptions: [{ type: 'entityChange', include: ['configs', 'configTypes'] }], handler: { type: 'file', path: join(root, 'events.json'), maxsizemb: 10, maxbackups: 0 } }],
      agentSocket: join(root, 'agent.sock'),
    },
    { logger: silentLogger, clock, version: currentVersion() },
  );
  if (options.initialize) await running.initialize({ username: 'admin', password: 'admin-password', name: 'Admin' });
  return running;
}

const mgmt = (path: string) => `https://127.0.0.1:${port}/edge/management/v1${path}`;
const client = (path: string) => `https://127.0.0.1:${port}/edge/client/v1${path}`;
const login = async (username: string, password: string, configTypes?: string[]) => {
  const response = await http.post(client('/authenticate?method=password'), { body: { username, password, ...(configTypes ? { configTypes } : {}) } });
  assert.equal(response.status, 200, response.text);
  return { token: response.json.data.token as string, configTypes: response.json.data.configTypes as string[] };
};
const created = async (path: string, body: unknown) => {
  const response = await http.post(mgmt(path), { headers: admin, body });
  assert.equal(response.status, 201, `POST ${path}: ${response.text}`);
  return response.json.data.id as string;
};

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'edgeward-configs-'));
  const pkiDir = join(root, 'pki');
  await initPki(pkiDir, { trustDomain: 'edgeward.test' });
  await issueControllerCertificate(pkiDir, { id: 'configs', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  const paths = controllerPaths(pkiDir, 'configs');
  tls = { certPem: readFileSync(paths.chain, 'utf8'), keyPem: readFileSync(paths.key, 'utf8'), caPem: readFileSync(pkiPaths(pkiDir).bundle, 'utf8') };
  port = await freePort();
  ctrlPort = await freePort();
  controller = await start({ initialize: true });
  http = new HttpsClient(tls.caPem);
  admin = { 'zt-session': (await login('admin', 'admin-password')).token };
});

after(async () => {
  http?.close();
  await controller?.close();
  rmSync(root, { recursive: true, force: true });
});

test('host.v1 and intercept.v1 are there from the start with their well-known ids and schemas', async () => {
  const list = await http.get(mgmt('/config-types'), { headers: admin });
  assert.equal(list.status, 200, list.text);
  const byName = Object.fromEntries(list.json.data.map((type: { name: string; id: string }) => [type.name, type]));
  assert.equal(byName['host.v1'].id, hostV1);
  assert.equal(byName['intercept.v1'].id, interceptV1);
  assert.equal(byName['host.v1'].target, 'service');
  assert.equal(byName['intercept.v1'].schema.$id, 'http://edge.openziti.org/schemas/intercept.v1.config.json');
  assert.deepEqual(byName['intercept.v1'].schema.required, ['protocols', 'addresses', 'portRanges']);
  assert.equal(list.json.meta.pagination.totalCount, 2);

  const filtered = await http.get(mgmt(`/config-types?filter=${encodeURIComponent('name = "host.v1"')}`), { headers: admin });
  assert.deepEqual(filtered.json.data.map((type: { id: string }) => type.id), [hostV1]);

  const deleted = await http.delete(mgmt(`/config-types/${hostV1}`), { headers: admin });
  assert.equal(deleted.status, 400, deleted.text);
  assert.equal(deleted.json.error.code, 'ENTITY_CAN_NOT_BE_DELETED');
});

test('a host.v1 config on a service is shown to a client that asked for host.v1, and only to it', async () => {
  const hostData = { protocol: 'tcp', address: 'localhost', port: 8080 };
  const hostConfig = await created('/configs', { name: 'web.host', configTypeId: hostV1, data: hostData, tags: { team: 'web' } });
  const interceptConfig = await created('/configs', { name: 'web.intercept', configTypeId: 'intercept.v1', data: { protocols: ['tcp'], addresses: ['web.ziti'], portRanges: [{ low: 80, high: 80 }] } });

  const detail = await http.get(mgmt(`/configs/${hostConfig}`), { headers: admin });
  assert.equal(detail.status, 200, detail.text);
  assert.equal(detail.json.data.name, 'web.host');
  assert.equal(detail.json.data.configTypeId, hostV1);
  assert.deepEqual(detail.json.data.configType, { id: hostV1, name: 'host.v1', entity: 'config-types', _links: { self: { href: `./config-types/${hostV1}` } } });
  assert.deepEqual(detail.json.data.data, hostData);
  assert.deepEqual(detail.json.data.tags, { team: 'web' });
  const intercept = await http.get(mgmt(`/configs/${interceptConfig}`), { headers: admin });
  assert.equal(intercept.json.data.configTypeId, interceptV1, 'a config type may be given by name');

  const service = await created('/services', { name: 'web', encryptionRequired: true, roleAttributes: ['web'], configs: [hostConfig, interceptConfig] });
  const shown = await http.get(mgmt(`/services/${service}`), { headers: admin });
  assert.deepEqual(shown.json.data.configs, [hostConfig, interceptConfig]);
  assert.deepEqual(shown.json.data.config, {}, 'the admin session asked for no config types');
  const forType = await http.get(mgmt(`/config-types/${hostV1}/configs`), { headers: admin });
  assert.deepEqual(forType.json.data.map((config: { id: string }) => config.id), [hostConfig]);
  const servicesOf = await http.get(mgmt(`/configs/${hostConfig}/services`), { headers: admin });
  assert.deepEqual(servicesOf.json.data.map((row: { id: string }) => row.id), [service]);

  const userId = await created('/identities', { name: 'web-user', type: 'User', isAdmin: false, roleAttributes: ['web-users'] });
  await created('/authenticators', { method: 'updb', identityId: userId, username: 'web-user', password: 'web-user-password' });
  await created('/service-policies', { name: 'web-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#web-users'], serviceRoles: ['#web'] });

  const host = await login('web-user', 'web-user-password', ['host.v1', 'no-such-type']);
  assert.deepEqual(host.configTypes, [hostV1], 'names become ids; unknown types are dropped');
  const seen = await http.get(client(`/services/${service}`), { headers: { 'zt-session': host.token } });
  assert.equal(seen.status, 200, seen.text);
  assert.deepEqual(seen.json.data.config, { 'host.v1': hostData });
  const listed = await http.get(client('/services'), { headers: { 'zt-session': host.token } });
  assert.deepEqual(listed.json.data.find((row: { id: string }) => row.id === service).config, { 'host.v1': hostData });

  const overridden = await http.get(client(`/services?configTypes=${interceptV1}`), { headers: { 'zt-session': host.token } });
  assert.deepEqual(Object.keys(overridden.json.data[0].config), ['intercept.v1'], 'the configTypes query parameter overrides the session');

  const all = await login('web-user', 'web-user-password', ['all']);
  assert.deepEqual(all.configTypes, ['all']);
  const everything = await http.get(client(`/services/${service}`), { headers: { 'zt-session': all.token } });
  assert.deepEqual(Object.keys(everything.json.data.config).sort(), ['host.v1', 'intercept.v1']);

  const none = await login('web-user', 'web-user-password');
  assert.deepEqual(none.configTypes, []);
  assert.deepEqual((await http.get(client(`/services/${service}`), { headers: { 'zt-session': none.token } })).json.data.config, {});

  // Deleting the config takes it off the service.
  assert.equal((await http.delete(mgmt(`/configs/${interceptConfig}`), { headers: admin })).status, 200);
  assert.deepEqual((await http.get(mgmt(`/services/${service}`), { headers: admin })).json.data.configs, [hostConfig]);
});

test('invalid config data is refused with the field path, and nothing is written', async () => {
  const before = controller.services.store.appliedIndex();
  const refused = await http.post(mgmt('/configs'), { headers: admin, body: { name: 'bad.host', configTypeId: hostV1, data: { protocol: 'tcp', address: 'localhost', port: 70000 } } });
  assert.equal(refused.status, 400, refused.text);
  assert.equal(refused.json.error.code, 'COULD_NOT_VALIDATE');
  assert.equal(refused.json.error.cause.field, 'data.port');
  assert.match(refused.json.error.cause.reason, /data\.port must be <= 65535/);
  const missing = await http.post(mgmt('/configs'), { headers: admin, body: { name: 'bad.intercept', configTypeId: interceptV1, data: { protocols: ['tcp'], addresses: ['a.ziti'] } } });
  assert.equal(missing.json.error.cause.field, 'data.portRanges');
  const noType = await http.post(mgmt('/configs'), { headers: admin, body: { name: 'bad.type', configTypeId: 'nope', data: {} } });
  assert.equal(noType.json.error.cause.field, 'configTypeId');
  const noData = await http.post(mgmt('/configs'), { headers: admin, body: { name: 'no.data', configTypeId: hostV1 } });
  assert.equal(noData.json.error.cause.field, 'data');
  assert.equal(controller.services.store.appliedIndex(), before, 'no refused request reached the log');

  const unknown = await http.post(mgmt('/services'), { headers: admin, body: { name: 'ghostly', encryptionRequired: true, configs: ['no-such-config'] } });
  assert.equal(unknown.status, 400);
  assert.deepEqual(unknown.json.error.cause, { field: 'configs', reason: 'no configs found with the given ids', value: ['no-such-config'] });

  const one = await created('/configs', { name: 'dup.one', configTypeId: hostV1, data: { protocol: 'udp', address: 'dns', port: 53 } });
  const two = await created('/configs', { name: 'dup.two', configTypeId: hostV1, data: { protocol: 'udp', address: 'dns', port: 5353 } });
  const twice = await http.post(mgmt('/services'), { headers: admin, body: { name: 'twice', encryptionRequired: true, configs: [one, two] } });
  assert.equal(twice.status, 400);
  assert.match(twice.json.error.cause.reason, /Only one config of a given typed is allowed per service/);

  const patched = await http.patch(mgmt(`/configs/${one}`), { headers: admin, body: { data: { protocol: 'udp', address: 'dns' } } });
  assert.equal(patched.json.error.cause.field, 'data.port');
  const put = await http.put(mgmt(`/configs/${one}`), { headers: admin, body: { name: 'dup.one', data: { protocol: 'udp', address: 'dns', port: 5300 } } });
  assert.equal(put.status, 200, put.text);
  assert.equal((await http.get(mgmt(`/configs/${one}`), { headers: admin })).json.data.data.port, 5300);
});

test('a config type in use by configs cannot be deleted; operator types check their configs against their schema', async () => {
  const typeId = await created('/config-types', { name: 'web.proxy.v1', schema: { type: 'object', required: ['url'], properties: { url: { type: 'string' } } } });
  const badSchema = await http.post(mgmt('/config-types'), { headers: admin, body: { name: 'broken', schema: { type: 'nothing' } } });
  assert.equal(badSchema.status, 400);
  assert.match(badSchema.json.error.cause.field, /^schema/);
  const clash = await http.post(mgmt('/config-types'), { headers: admin, body: { name: 'host.v1' } });
  assert.equal(clash.json.error.cause.field, 'name');

  const refused = await http.post(mgmt('/configs'), { headers: admin, body: { name: 'proxy', configTypeId: typeId, data: { url: 7 } } });
  assert.equal(refused.json.error.cause.field, 'data.url');
  const configId = await created('/configs', { name: 'proxy', configTypeId: typeId, data: { url: 'http://proxy:3128' } });

  const inUse = await http.delete(mgmt(`/config-types/${typeId}`), { headers: admin });
  assert.equal(inUse.status, 409, inUse.text);
  assert.equal(inUse.json.error.code, 'CAN_NOT_DELETE_REFERENCED_ENTITY');
  assert.deepEqual(inUse.json.error.cause.value, [configId]);

  assert.equal((await http.patch(mgmt(`/config-types/${typeId}`), { headers: admin, body: { tags: { owner: 'ops' } } })).status, 200);
  assert.deepEqual((await http.get(mgmt(`/config-types/${typeId}`), { headers: admin })).json.data.tags, { owner: 'ops' });
  assert.equal((await http.delete(mgmt(`/configs/${configId}`), { headers: admin })).status, 200);
  assert.equal((await http.delete(mgmt(`/config-types/${typeId}`), { headers: admin })).status, 200);
  assert.equal((await http.get(mgmt(`/config-types/${typeId}`), { headers: admin })).status, 404);

  const events = readFileSync(join(root, 'events.json'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
  const ofType = events.filter((event) => event.entityType === 'configTypes' && event.finalState?.id === typeId);
  assert.equal(ofType.length >= 1, true, 'config type changes are entity change events');
  assert.equal(typeof ofType[0].raftIndex, 'number');
  assert.ok(events.some((event) => event.entityType === 'configs' && event.eventType === 'deleted' && event.initialState.id === configId));
});

test('configs and their services survive a controller restart', async () => {
  const configId = await created('/configs', { name: 'durable.host', configTypeId: hostV1, data: { protocol: 'tcp', address: 'db', port: 5432 } });
  const serviceId = await created('/services', { name: 'durable', encryptionRequired: true, configs: [configId] });
  await controller.close();
  controller = await start({ initialize: false });
  admin = { 'zt-session': (await login('admin', 'admin-password')).token };
  const config = await http.get(mgmt(`/configs/${configId}`), { headers: admin });
  assert.equal(config.status, 200, config.text);
  assert.deepEqual(config.json.data.data, { protocol: 'tcp', address: 'db', port: 5432 });
  const service = await http.get(mgmt(`/services/${serviceId}?configTypes=all`), { headers: admin });
  assert.deepEqual(service.json.data.configs, [configId]);
  assert.deepEqual(service.json.data.config, { 'host.v1': { protocol: 'tcp', address: 'db', port: 5432 } });
});
