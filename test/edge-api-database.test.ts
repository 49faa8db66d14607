// The management API's /database operations over HTTPS against a real controller: a snapshot is a consistent copy
// of the model with its raft index, written under <dataDir>/db-snapshots; the data-integrity check finds a service
// policy role naming a deleted identity (deletes leave `@id` roles behind) and the fixing run drops it, through raft.
// Every 2xx body validates against the spec.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { readBackupFile } from '../server/store/model-backup-file.ts';
import { managementPoster } from './support/circuit-routers.ts';
import { until } from './support/cluster-helpers.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { EdgeApiSchemas } from './support/edge-api-schemas.ts';

const schemas = EdgeApiSchemas.load('management');
let controller: ControllerFixture;
let admin: Record<string, string>;

async function call(method: string, path: string, headers = admin) {
  const response = await controller.http.request(method, `${controller.managementApi}${path}`, { headers });
  if (response.status < 300) assert.deepEqual(schemas.problems(method, path, response.status, response.json), [], `${method} ${path}`);
  return response;
}

/** The finished check's report (20 s). */
function finished(startedAfter: string): Promise<any> {
  return until('the integrity check to finish', async () => {
    const report = (await call('GET', '/database/data-integrity-results')).json.data;
    return !report.inProgress && report.startTime >= startedAfter ? report : undefined;
  }, 20_000);
}

before(async () => {
  controller = await ControllerFixture.create();
  admin = { 'zt-session': await controller.adminToken() };
});
after(async () => {
  await controller?.dispose();
});

test('a snapshot holds every table as applied, with its raft index, in one file under db-snapshots', async () => {
  const post = managementPoster(controller, admin);
  await post('/identities', { name: 'in-the-snapshot', type: 'User', isAdmin: false });
  const response = await call('POST', '/database/snapshot');
  assert.equal(response.status, 200, response.text);
  const folder = join(controller.dataDir, 'db-snapshots');
  const files = readdirSync(folder);
  assert.equal(files.length, 1, files.join(', '));
  assert.match(files[0]!, /^model-\d+-.+\.json$/, 'no temporary file is left');
  const snapshot = await readBackupFile(join(folder, files[0]!));
  assert.ok(snapshot.header.index > 0 && snapshot.header.term > 0, JSON.stringify(snapshot.header));
  assert.equal(files[0]!.startsWith(`model-${snapshot.header.index}-`), true);
  const answer = response.json.data;
  assert.deepEqual([answer.path, answer.index, answer.term, answer.sha256, answer.sizeBytes], [join(folder, files[0]!), snapshot.header.index, snapshot.header.term, snapshot.sha256, snapshot.sizeBytes]);
  assert.match(snapshot.header.clusterId, /^[0-9a-f-]{36}$/, 'the cluster id the first leader set');
  assert.equal(answer.clusterId, snapshot.header.clusterId);
  assert.ok((snapshot.tables.identities as unknown as Array<{ name: string }>).some((row) => row.name === 'in-the-snapshot'));
  assert.equal((await call('POST', '/database/snapshot', {})).status, 401);
});

test('the integrity check reports a policy role naming a deleted identity; the fixing run drops it', async () => {
  const post = managementPoster(controller, admin);
  const before = new Date().toISOString();
  assert.equal((await call('POST', '/database/check-data-integrity')).status, 202);
  const clean = await finished(before);
  assert.deepEqual([clean.results, clean.error, clean.fixingErrors, clean.tooManyErrors], [[], '', false, false]);

  const doomed = await post('/identities', { name: 'doomed', type: 'User', isAdmin: false });
  const service = await post('/services', { name: 'integrity-svc', encryptionRequired: true });
  const policy = await post('/service-policies', { name: 'names-doomed', type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${doomed}`, '#ops'], serviceRoles: [`@${service}`] });
  assert.equal((await call('DELETE', `/identities/${doomed}`)).status, 200);

  const checkedAt = new Date().toISOString();
  assert.equal((await call('POST', '/database/check-data-integrity')).status, 202);
  const found = await finished(checkedAt);
  assert.equal(found.results.length, 1, JSON.stringify(found.results));
  assert.match(found.results[0].description, new RegExp(`service policy names-doomed \\(${policy}\\) names rows that do not exist: identityRoles @${doomed}`));
  assert.equal(found.results[0].fixed, false);
  assert.deepEqual((await call('GET', `/service-policies/${policy}`)).json.data.identityRoles, [`@${doomed}`, '#ops'], 'a check changes nothing');

  const fixedAt = new Date().toISOString();
  assert.equal((await call('POST', '/database/fix-data-integrity')).status, 202);
  const fixed = await finished(fixedAt);
  assert.deepEqual([fixed.results.length, fixed.results[0].fixed, fixed.fixingErrors, fixed.error], [1, true, true, '']);
  assert.deepEqual((await call('GET', `/service-policies/${policy}`)).json.data.identityRoles, ['#ops']);

  const again = new Date().toISOString();
  assert.equal((await call('POST', '/database/check-data-integrity')).status, 202);
  assert.deepEqual((await finished(again)).results, []);
  assert.equal((await call('GET', '/database/data-integrity-results', {})).status, 401);
});
