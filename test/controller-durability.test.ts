// What survives a restart and a crash: every acknowledged write, the sessions, and a store that reopens cleanly.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { callAgent } from '../server/agent/agent-client.ts';
import { ControllerFixture } from './support/controller-fixture.ts';

const fixtures: ControllerFixture[] = [];
after(async () => Promise.all(fixtures.map((fixture) => fixture.dispose())));

test('a restart keeps identities and API sessions', async () => {
  const controller = await ControllerFixture.create();
  fixtures.push(controller);
  const token = await controller.adminToken();
  const headers = { 'zt-session': token };
  const created = await controller.http.post(`${controller.managementApi}/identities`, { headers, body: { name: 'survivor', isAdmin: false } });
  assert.equal(created.status, 201);

  assert.equal(await controller.stop('SIGTERM'), 0, 'a clean stop exits 0');
  await controller.start();

  const session = await controller.http.get(`${controller.clientApi}/current-api-session`, { headers });
  assert.equal(session.status, 200, 'the session outlives the restart');

  // A second process on the same data directory refuses to start and says why.
  const { spawnSync } = await import('node:child_process');
  const second = spawnSync(new URL('../edgeward', import.meta.url).pathname, ['controller', 'run', controller.configFile], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(second.status, 1);
  assert.match(second.stderr, /is locked: another controller is using this data directory|is in use by a running controller/);
  assert.equal((await controller.http.get(`${controller.clientApi}/current-api-session`, { headers })).status, 200, 'the first one is unharmed');
  const identity = await controller.http.get(`${controller.managementApi}/identities/${created.json.data.id}`, { headers });
  assert.equal(identity.status, 200);
  assert.equal(identity.json.data.name, 'survivor');
});

test('kill -9 during a burst of creates loses no acknowledged create and the store reopens cleanly', async () => {
  const controller = await ControllerFixture.create();
  fixtures.push(controller);
  const headers = { 'zt-session': await controller.adminToken() };
  const acknowledged = new Set<string>();
  let stop = false;
  let sequence = 0;
  const worker = async () => {
    while (!stop) {
      const name = `burst-${sequence++}`;
      try {
        const response = await controller.http.post(`${controller.managementApi}/identities`, { headers, body: { name, isAdmin: false } });
        if (response.status === 201) acknowledged.add(response.json.data.id as string);
      } catch {
        return; // the connection died with the process
      }
    }
  };
  const workers = Array.from({ length: 16 }, worker);
  const deadline = Date.now() + 10_000;
  while (acknowledged.size < 300 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  controller.child!.kill('SIGKILL');
  stop = true;
  await Promise.all(workers);
  await new Promise((resolve) => controller.child!.exitCode !== null || controller.child!.signalCode !== null ? resolve(undefined) : controller.child!.once('exit', resolve));
  assert.ok(acknowledged.size >= 50, `the burst got going (${acknowledged.size} acknowledged)`);

  await controller.start();
  const status = await callAgent(controller.agentSocket, 'status');
  assert.ok(status.ok);
  const { appliedIndex, lastLogIndex } = status.result as { appliedIndex: number; lastLogIndex: number };
  assert.equal(appliedIndex, lastLogIndex, 'every logged entry is applied after the restart');

  const fresh = { 'zt-session': await controller.adminToken() };
  const listed = await controller.http.get(`${controller.managementApi}/identities?limit=500&filter=${encodeURIComponent('name contains "burst-"')}`, { headers: fresh });
  const stored = new Set<string>(listed.json.data.map((row: { id: string }) => row.id));
  let offset = 500;
  while (stored.size < listed.json.meta.pagination.totalCount) {
    const page = await controller.http.get(`${controller.managementApi}/identities?limit=500&offset=${offset}&filter=${encodeURIComponent('name contains "burst-"')}`, { headers: fresh });
    for (const row of page.json.data) stored.add(row.id);
    offset += 500;
  }
  const lost = [...acknowledged].filter((id) => !stored.has(id));
  assert.deepEqual(lost, [], `${lost.length} of ${acknowledged.size} acknowledged creates were lost`);

  const write = await controller.http.post(`${controller.managementApi}/identities`, { headers: fresh, body: { name: 'after-crash', isAdmin: false } });
  assert.equal(write.status, 201, 'the reopened store takes writes');
});
