// A controller whose raft log cannot be written stops serving: a real three-controller cluster whose leader runs
// under the demo's supervisor with a disk that starts failing (every write to its WAL segments fails with EIO, from
// the fs.write its WAL makes). Health, session checks and writes answer 503 CONTROLLER_UNAVAILABLE at once, the
// process exits with code 4, the supervisor starts it again, and it rejoins the cluster.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Supervisor } from '../server/demo/supervisor.ts';
import { waitForHealthy } from '../server/demo/wait-for-health.ts';
import { agent, memberList, threeControllerCluster, until } from './support/cluster-helpers.ts';
import type { ControllerFixture } from './support/controller-fixture.ts';
import { LogWatch } from './support/log-watch.ts';

const faultPreload = new URL('./support/wal-fault-preload.ts', import.meta.url).href;
const pkiRoot = mkdtempSync(join(tmpdir(), 'edgeward-raft-failure-pki-'));
let nodes: ControllerFixture[] = [];
let supervisor: Supervisor | undefined;
const supervisorLog: string[] = [];

before(async () => {
  nodes = await threeControllerCluster(pkiRoot);
});
after(async () => {
  await supervisor?.stop(15_000);
  await Promise.all(nodes.map((node) => node.dispose()));
  rmSync(pkiRoot, { recursive: true, force: true });
});

const leaderOf = async (node: ControllerFixture) => (await memberList(node)).find((row) => row.leader)?.id;

/** Every member connected to the leader `asker` knows (followers need not be connected to each other). */
async function allConnectedToLeader(asker: ControllerFixture): Promise<boolean> {
  const leaderId = await leaderOf(asker);
  const leader = nodes.find((node) => node.id === leaderId);
  return leader !== undefined && (await memberList(leader)).every((row) => row.connected);
}

test('a controller whose raft log fails answers 503 CONTROLLER_UNAVAILABLE, exits with code 4, and rejoins once restarted', async () => {
  const [victim, ...others] = nodes as [ControllerFixture, ControllerFixture, ControllerFixture];
  // Run the victim under the supervisor, with the fault-injecting preload, and make it the leader.
  await victim.stop('SIGTERM');
  const exits: Array<{ code: number | null; signal: string | null }> = [];
  const starts: ChildProcess[] = [];
  supervisor = new Supervisor({
    name: `controller ${victim.id}`,
    spawn: () => {
      const { file, args, env } = victim.command(['--import', faultPreload]);
      const child = spawn(file, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
      child.stderr!.resume();
      child.once('exit', (code, signal) => exits.push({ code, signal }));
      return child;
    },
    log: (line) => supervisorLog.push(line),
    onStart: (child) => starts.push(child),
    restartDelayMs: 500,
  });
  supervisor.start();
  await waitForHealthy(`${victim.origin}/health-checks`, victim.caPem, 60_000);
  await until(`${victim.id} connected again`, () => allConnectedToLeader(others[0]));
  await until(`${victim.id} to lead`, async () => {
    if ((await leaderOf(victim)) === victim.id) return true;
    await agent(others[0], 'cluster.transfer', { id: victim.id }).catch(() => undefined);
    return false;
  });
  const token = await victim.adminToken();
  const headers = { 'zt-session': token };
  const healthyWrite = await victim.http.post(`${victim.managementApi}/identities`, { headers, body: { name: 'before-the-fault', isAdmin: false } });
  assert.equal(healthyWrite.status, 201, healthyWrite.text);

  const log = new LogWatch(victim.logFile);
  const mark = log.mark();
  const failing = starts[0]!;
  failing.kill('SIGUSR2');
  // The write whose log append fails is refused; so is everything after it, at once. (The signal arrives when the
  // victim's loop gets to it: a write or two may still succeed before.)
  let attempt = 0;
  const write = await until('the write that meets the failing disk', async () => {
    const response = await victim.http.post(`${victim.managementApi}/identities`, { headers, body: { name: `during-the-fault-${attempt++}`, isAdmin: false } });
    return response.status === 201 ? undefined : response;
  }, 10_000);
  assert.equal(write.status, 503, write.text);
  assert.equal(write.json.error.code, 'CONTROLLER_UNAVAILABLE');
  const [health, session, raftHealth, again] = await Promise.all([
    victim.http.get(`${victim.origin}/health-checks`),
    victim.http.get(`${victim.managementApi}/identities`, { headers }),
    victim.http.get(`${victim.origin}/health-checks/controller/raft`),
    victim.http.post(`${victim.managementApi}/identities`, { headers, body: { name: 'during-the-fault-again', isAdmin: false } }),
  ]);
  assert.equal(health.status, 503, health.text);
  const raftCheck = health.json.data.checks.find((check: { id: string }) => check.id === 'raft.node');
  assert.equal(raftCheck.healthy, false);
  assert.match(raftCheck.err.message, /the raft node stopped: .*EIO/);
  assert.equal(raftHealth.status, 503);
  assert.equal(session.status, 503, session.text);
  assert.equal(session.json.error.code, 'CONTROLLER_UNAVAILABLE');
  assert.equal(again.status, 503);
  assert.equal(again.json.error.code, 'CONTROLLER_UNAVAILABLE');
  assert.ok(!JSON.stringify(session.json).includes('EIO'), 'no internals in the answer');

  await log.waitFor(mark, (line) => line.msg === 'raft node stopped after a failure' && /EIO/.test(String(line.error)));
  await log.waitFor(mark, (line) => line.msg === 'controller unavailable after a raft failure; exiting for a restart' && line.exitInMs === 3000);
  await until('the failed process to exit', () => exits.length > 0, 30_000);
  assert.deepEqual(exits[0], { code: 4, signal: null });

  // The others elect a leader and take writes meanwhile.
  const survivorToken = await others[0].adminToken();
  const meanwhile = await until('a write through a survivor', async () => {
    const response = await others[0].http.post(`${others[0].managementApi}/identities`, { headers: { 'zt-session': survivorToken }, body: { name: 'while-it-was-down', isAdmin: false } });
    return response.status === 201 ? response : undefined;
  });

  // Restarted by the supervisor (without the fault, which a fresh process has not been told to inject), it rejoins.
  await until('the supervisor to restart it', () => supervisor!.restarts === 1 && starts.length === 2, 30_000);
  await waitForHealthy(`${victim.origin}/health-checks`, victim.caPem, 60_000);
  await until(`${victim.id} connected to the leader again`, () => allConnectedToLeader(others[0]));
  const newToken = await until('a session on the restarted controller', () => victim.adminToken());
  const seen = await until('the write made while it was down, on the restarted controller', async () => {
    const response = await victim.http.get(`${victim.managementApi}/identities/${meanwhile.json.data.id}`, { headers: { 'zt-session': newToken } });
    return response.status === 200 ? response : undefined;
  });
  assert.equal(seen.json.data.name, 'while-it-was-down');
  const after = await victim.http.post(`${victim.managementApi}/identities`, { headers: { 'zt-session': newToken }, body: { name: 'after-the-restart', isAdmin: false } });
  assert.equal(after.status, 201, after.text);
  assert.ok(supervisorLog.some((line) => line.includes(`controller ${victim.id} exited (code 4); restarting it`)), supervisorLog.join('\n'));
});
