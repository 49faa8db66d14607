// Disaster recovery across real processes, as an operator would live it. Three controllers take a steady write load
// while the leader writes a backup every two seconds (`agent controller snapshot`); then two of the three lose their
// processes and data folders for good. `controller recover` on the stopped survivor (refused while it runs and while
// a quorum answered) brings writes back with every acknowledged write, and two fresh controllers join it. Then the
// survivor is lost too: `controller restore` refuses a damaged, truncated, foreign, earlier-format backup and a data
// folder that is not empty, writing nothing, and restores the newest backup: every write acknowledged before that
// backup was asked for is there, and the restored model is exactly the backup's, nothing torn.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { callAgent } from '../server/agent/agent-client.ts';
import { readBackupFile } from '../server/store/model-backup-file.ts';
import { circuitRouterYaml, enrollRouterProcess, startWelcomedRouter } from './support/circuit-routers.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { freePort } from './support/free-port.ts';
import type { RouterRun } from './support/router-fixture.ts';
import { agent, memberList, threeControllerCluster, until } from './support/cluster-helpers.ts';

const cliEntry = fileURLToPath(new URL('../server/cli/main.ts', import.meta.url));
const tsxLoader = new URL('../node_modules/tsx/dist/loader.mjs', import.meta.url).href;
const pkiDir = mkdtempSync(join(tmpdir(), 'edgeward-dr-pki-'));
const scratch = mkdtempSync(join(tmpdir(), 'edgeward-dr-'));
const fixtures: ControllerFixture[] = [];
let router: RouterRun | undefined;
after(async () => {
  await router?.stop();
  await Promise.all(fixtures.map((fixture) => fixture.dispose()));
  rmSync(pkiDir, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

// Snapshots and compaction often, so the survivor's state is a raft snapshot plus a log tail, as in production.
const compacting = (yaml: string) => yaml.replace('snapshotInterval: 2m', 'snapshotInterval: 10s').replace('snapshotThreshold: 500', 'snapshotThreshold: 50').replace('trailingLogs: 500', 'trailingLogs: 10');

/** `./edgeward <args>` as an operator runs it: exit code and output, bounded in time. */
function edgeward(args: readonly string[], cwd = scratch): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', tsxLoader, cliEntry, ...args], { cwd, timeout: 120_000, killSignal: 'SIGKILL', maxBuffer: 8 * 1024 * 1024, encoding: 'utf8' }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

/** Every identity name on `node` starting with `prefix` (its local, possibly stale, view). */
async function namesOn(node: ControllerFixture, prefix: string): Promise<Set<string>> {
  const token = await node.adminToken();
  const names = new Set<string>();
  for (let offset = 0; ; offset += 500) {
    const filter = encodeURIComponent(`name contains "${prefix}"`);
    const response = await node.http.get(`${node.managementApi}/identities?filter=${filter}&limit=500&offset=${offset}`, { headers: { 'zt-session': token } });
    assert.equal(response.status, 200, response.text);
    for (const row of response.json.data as Array<{ name: string }>) if (row.name.startsWith(prefix)) names.add(row.name);
    if (offset + 500 >= (response.json.meta.pagination.totalCount as number)) return names;
  }
}

interface LoadRecord {
  readonly token: string;
  readonly attempted: string[];
  /** name → when its 201 arrived (ms). */
  readonly acknowledged: Map<string, number>;
  stop(): Promise<void>;
}

/** One write at a time through `node`, each a new identity, until stopped; every outcome recorded. */
async function steadyLoad(node: ControllerFixture, prefix: string): Promise<LoadRecord> {
  const token = await node.adminToken();
  const record = { attempted: [] as string[], acknowledged: new Map<string, number>() };
  let running = true;
  const loop = (async () => {
    for (let n = 0; running && n < 20_000; n++) {
      const name = `${prefix}${n}`;
      record.attempted.push(name);
      const response = await node.http.post(`${node.managementApi}/identities`, { headers: { 'zt-session': token }, body: { name, type: 'User', isAdmin: false } }).catch(() => undefined);
      if (response?.status === 201) record.acknowledged.set(name, Date.now());
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return {
    ...record,
    token,
    async stop() {
      running = false;
      await loop;
    },
  };
}

/** What the data folder holds of a cluster member's state. */
const stateIn = (dataDir: string) => ['raft.db', 'snapshots', 'ctrl.db'].filter((name) => existsSync(join(dataDir, name)));

/** A copy of a backup with its header edited and its checksum made to match again (a well-formed backup of
 * another cluster). */
function reforged(path: string, edit: (header: Record<string, unknown>) => void): string {
  const lines = readFileSync(path, 'utf8').split('\n');
  const header = JSON.parse(lines[0]!) as Record<string, unknown>;
  edit(header);
  lines[0] = JSON.stringify(header);
  const body = `${lines.slice(0, -2).join('\n')}\n`;
  const copy = join(scratch, `reforged-${Date.now()}.json`);
  writeFileSync(copy, `${body}${JSON.stringify({ end: true, sha256: createHash('sha256').update(body).digest('hex') })}\n`);
  return copy;
}

test('a cluster that lost two of three controllers recovers on the survivor; with the survivor lost too, a backup restores it', async (t) => {
  const [ctrl1, ctrl2, ctrl3] = await threeControllerCluster(pkiDir, { editConfig: compacting });
  fixtures.push(ctrl1!, ctrl2!, ctrl3!);
  const survivor = ctrl1!;
  await until('ctrl1 to lead', async () => (await memberList(survivor)).find((row) => row.leader)?.id === 'ctrl1');

  // Refused while a quorum answers (and while the process runs), writing nothing.
  const running = await edgeward(['controller', 'recover', survivor.configFile]);
  assert.equal(running.code, 1, running.stdout + running.stderr);
  assert.match(running.stderr, /recover refused: the controller is running \(its model store .*ctrl\.db is locked by another process\): stop it first/);
  await survivor.stop();
  const quorum = await edgeward(['controller', 'recover', survivor.configFile]);
  assert.equal(quorum.code, 1, quorum.stdout + quorum.stderr);
  assert.match(quorum.stderr, /recover refused: a quorum of the cluster is still reachable \((ctrl2, ctrl3|ctrl3, ctrl2) answer with state of their own; 3 of 3 voters/);
  await survivor.start();
  await until('a leader again', async () => (await memberList(survivor)).some((row) => row.leader));
  await until('ctrl1 to lead again', async () => {
    if ((await memberList(survivor)).find((row) => row.leader)?.id === 'ctrl1') return true;
    await callAgent(survivor.agentSocket, 'cluster.transfer', { id: 'ctrl1' }, 20_000);
    return false;
  });

  // A router on the survivor's control address: it is in every backup, and must come back after each recovery.
  const routerYaml = circuitRouterYaml({ ctrlAddress: survivor.ctrlAddress, edgePort: await freePort(), tunnel: '{mode: host}', tail: '' });
  const enrolled = await enrollRouterProcess(survivor, { 'zt-session': await survivor.adminToken() }, join(scratch, 'router'), routerYaml, 'router-one', { isTunnelerEnabled: true });
  router = await startWelcomedRouter(enrolled.config, 'the router welcomed');
  const routerOnline = (node: ControllerFixture, token: string) =>
    until(`router-one online on ${node.id}`, async () => (await node.http.get(`${node.managementApi}/edge-routers/${enrolled.id}`, { headers: { 'zt-session': token } })).json?.data?.isOnline === true, 90_000);

  // A steady load, and a backup on the leader every two seconds (the first through the CLI, with --out).
  const load = await steadyLoad(survivor, 'dr-');
  const backups: Array<{ path: string; index: number; askedAt: number }> = [];
  const cliBackup = await edgeward(['agent', 'controller', 'snapshot', '--socket', survivor.agentSocket, '--out', 'first-backup.json']);
  assert.equal(cliBackup.code, 0, cliBackup.stderr);
  assert.match(cliBackup.stdout, new RegExp(`snapshot written to ${join(scratch, 'first-backup.json').replace(/[.]/g, '\\.')} \\(raft index \\d+, term \\d+, \\d+ bytes, sha256 [0-9a-f]{64}\\)`));
  for (let round = 0; round < 6; round++) {
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const askedAt = Date.now();
    const written = (await agent(survivor, 'controller.snapshot')) as { path: string; index: number };
    backups.push({ path: written.path, index: written.index, askedAt });
  }
  assert.ok(load.acknowledged.size > 50, `the load wrote ${load.acknowledged.size}`);
  assert.ok(backups[backups.length - 1]!.index > backups[0]!.index, 'backups follow the writes');

  // Two controllers lost for good, mid-load: processes killed, data folders gone.
  const tokenBefore = await survivor.adminToken();
  await Promise.all([ctrl2!.stop('SIGKILL'), ctrl3!.stop('SIGKILL')]);
  for (const lost of [ctrl2!, ctrl3!]) rmSync(lost.dataDir, { recursive: true, force: true });
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  await load.stop();
  const refused = await survivor.http.post(`${survivor.managementApi}/identities`, { headers: { 'zt-session': tokenBefore }, body: { name: 'no-quorum', type: 'User', isAdmin: false } });
  assert.notEqual(refused.status, 201, 'no writes without a majority');

  // Recover on the stopped survivor.
  await survivor.stop();
  const recovered = await edgeward(['controller', 'recover', survivor.configFile]);
  assert.equal(recovered.code, 0, recovered.stdout + recovered.stderr);
  assert.match(recovered.stdout, /recovered: ctrl1 is the only voter of cluster [0-9a-f-]{36} at raft index \d+, term \d+ \(\d+ log entries applied\); removed from the configuration: ctrl2, ctrl3/);
  await survivor.start();
  await until('ctrl1 to lead alone', async () => {
    const members = await memberList(survivor);
    return members.length === 1 && members[0]!.leader;
  });
  assert.match(survivor.readLog(), /"msg":"cluster membership forced to this controller by controller recover".*"previousMembers":\["ctrl1","ctrl2","ctrl3"\]/);
  const forcedEvent = readFileSync(survivor.eventsFile, 'utf8')
    .split('\n')
    .filter((line) => line.includes('"members.changed"'))
    .map((line) => JSON.parse(line))
    .find((event) => event.forced);
  assert.ok(forcedEvent, 'a members.changed event records the forced change');
  assert.deepEqual([forcedEvent.forced.by, forcedEvent.peers.map((peer: { id: string }) => peer.id)], ['recover', ['ctrl1']]);

  const afterRecovery = await namesOn(survivor, 'dr-');
  const lostWrites = [...load.acknowledged.keys()].filter((name) => !afterRecovery.has(name));
  assert.deepEqual(lostWrites, [], 'every write the leader acknowledged survives its recovery');
  for (const name of afterRecovery) assert.ok(load.attempted.includes(name), `${name} was never written`);
  const token = await survivor.adminToken();
  await routerOnline(survivor, token);
  const fresh = await survivor.http.post(`${survivor.managementApi}/identities`, { headers: { 'zt-session': token }, body: { name: 'after-recovery', type: 'User', isAdmin: false } });
  assert.equal(fresh.status, 201, fresh.text);

  // Two fresh controllers join the recovered cluster and catch up.
  const joiners = [await ControllerFixture.create({ pkiDir, id: 'ctrl4', initAdmin: false, editConfig: compacting }), await ControllerFixture.create({ pkiDir, id: 'ctrl5', initAdmin: false, editConfig: compacting })];
  fixtures.push(...joiners);
  for (const joiner of joiners) await agent(survivor, 'cluster.add', { address: joiner.ctrlAddress, voter: true });
  await until('three connected voters again', async () => {
    const members = await memberList(survivor);
    return members.length === 3 && members.every((row) => row.connected && row.voter);
  });
  for (const joiner of joiners) await until(`${joiner.id} to hold every write`, async () => (await namesOn(joiner, 'dr-')).size === afterRecovery.size && (await namesOn(joiner, 'after-recovery')).size === 1, 60_000);

  // Now the survivor is lost too, and the joiners with it: only the backups remain.
  for (const node of [survivor, ...joiners]) await node.stop('SIGKILL');
  // The backups went to the data folder's db-snapshots: the newest was copied off the machine, as the runbook says.
  const newestWritten = backups.reduce((a, b) => (b.index > a.index ? b : a));
  const newest = { ...newestWritten, path: join(scratch, 'offsite-backup.json') };
  copyFileSync(newestWritten.path, newest.path);
  rmSync(survivor.dataDir, { recursive: true, force: true });
  const backup = await readBackupFile(newest.path);

  const restore = (file: string, config = survivor.configFile) => edgeward(['controller', 'restore', config, file]);
  const damaged = join(scratch, 'damaged.json');
  const bytes = readFileSync(newest.path);
  const flipAt = bytes.indexOf('"dr-1"') + 2;
  writeFileSync(damaged, Buffer.concat([bytes.subarray(0, flipAt), Buffer.from('x'), bytes.subarray(flipAt + 1)]));
  const truncated = join(scratch, 'truncated.json');
  writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.length / 2)));
  const earlier = join(scratch, 'earlier.json');
  writeFileSync(earlier, JSON.stringify({ format: 'edgeward-model-snapshot/1', appliedIndex: backup.header.index, takenAt: backup.header.takenAt, tables: backup.tables }));
  const foreign = reforged(newest.path, (header) => (header.trustDomain = 'other.example'));
  const refusals: Array<[string, RegExp]> = [
    [damaged, /restore refused: the backup cannot be restored \(corrupt\): .*damaged\.json: checksum mismatch/],
    [truncated, /restore refused: the backup cannot be restored \(truncated\): .*truncated\.json: the file ends after \d+ bytes without its end mark/],
    [earlier, /restore refused: the backup cannot be restored \(wrong-format\): .*edgeward-model-snapshot\/1 file of an earlier release/],
    [foreign, /restore refused: the backup is of another cluster: its trust domain is 'other\.example'.*this controller's certificate is of 'edgeward\.test'/],
  ];
  for (const [file, reason] of refusals) {
    const outcome = await restore(file);
    assert.equal(outcome.code, 1, `${file}: ${outcome.stdout}${outcome.stderr}`);
    assert.match(outcome.stderr, reason);
    assert.deepEqual(stateIn(survivor.dataDir), [], `nothing was written for ${file}`);
  }
  const occupied = await restore(newest.path, joiners[0]!.configFile);
  assert.equal(occupied.code, 1);
  assert.match(occupied.stderr, /restore refused: the data folder .* is not empty \(it holds raft\.db, snapshots, ctrl\.db\)/);

  const restored = await restore(newest.path);
  assert.equal(restored.code, 0, restored.stdout + restored.stderr);
  assert.match(restored.stdout, new RegExp(`restored \\d+ rows of cluster ${backup.header.clusterId} at raft index ${backup.header.index}, term ${backup.header.term}`));
  await survivor.start();
  await until('the restored controller to lead', async () => (await memberList(survivor)).some((row) => row.leader && row.id === 'ctrl1'));
  assert.match(survivor.readLog(), /"msg":"cluster restored from a backup with this controller as its only voter"/);
  const inBackup = new Set((backup.tables.identities as unknown as Array<{ name: string }>).map((row) => row.name).filter((name) => name.startsWith('dr-')));
  const afterRestore = await namesOn(survivor, 'dr-');
  assert.deepEqual([...afterRestore].sort(), [...inBackup].sort(), 'the restored model is the backup, nothing more or less');
  const acknowledgedBefore = [...load.acknowledged].filter(([, at]) => at < newest.askedAt).map(([name]) => name);
  assert.deepEqual(acknowledgedBefore.filter((name) => !afterRestore.has(name)), [], 'every write acknowledged before the backup was asked for is restored');
  assert.equal((await namesOn(survivor, 'after-recovery')).size, 0, 'writes after the backup are not in it');
  // Sessions and routers come back as after a restart: the load's session (made before every backup) still works.
  const sessionCheck = await survivor.http.get(`${survivor.managementApi}/current-api-session`, { headers: { 'zt-session': load.token } });
  assert.equal(sessionCheck.status, 200, sessionCheck.text);
  const restoredToken = await survivor.adminToken();
  await routerOnline(survivor, restoredToken);
  assert.equal((await survivor.http.post(`${survivor.managementApi}/identities`, { headers: { 'zt-session': restoredToken }, body: { name: 'after-restore', type: 'User', isAdmin: false } })).status, 201);

  // Members are added as usual.
  const rejoin = await ControllerFixture.create({ pkiDir, id: 'ctrl6', initAdmin: false, editConfig: compacting });
  fixtures.push(rejoin);
  await agent(survivor, 'cluster.add', { address: rejoin.ctrlAddress, voter: true });
  await until('ctrl6 to hold the restored model', async () => (await namesOn(rejoin, 'dr-')).size === inBackup.size && (await namesOn(rejoin, 'after-restore')).size === 1, 60_000);
  assert.ok(readdirSync(survivor.dataDir).includes('snapshots'));
  t.diagnostic(`writes acknowledged ${load.acknowledged.size} of ${load.attempted.length}; after recovery ${afterRecovery.size}; backups ${backups.length}, newest at index ${backup.header.index} holding ${inBackup.size} of them (${backup.sizeBytes} bytes)`);
});
