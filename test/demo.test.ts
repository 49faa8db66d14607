// The README's run command as a user runs it: ./edgeward demo brings up three controllers formed into one cluster,
// writes demo.json, serves the admin on every controller, restarts a controller that is killed, stops everything
// on Ctrl-C, and on a second start reuses the data and forms the same cluster without initializing it again.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { callAgent } from '../server/agent/agent-client.ts';
import type { MemberRow } from '../server/cluster/cluster-service.ts';
import { HttpsClient } from './support/https-client.ts';

const edgeward = fileURLToPath(new URL('../edgeward', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'edgeward-demo-'));
const data = join(root, 'data');
const stateFile = join(data, 'demo.json');
const ids = ['ctrl1', 'ctrl2', 'ctrl3'];
const controllerKeys = ['agentSocket', 'clientApi', 'config', 'dataDir', 'eventsFile', 'healthChecks', 'id', 'logFile', 'managementApi', 'metrics', 'pid'].sort();

interface Controller {
  id: string;
  pid: number;
  clientApi: string;
  managementApi: string;
  healthChecks: string;
  metrics: string;
  agentSocket: string;
  logFile: string;
}
interface State {
  controllers: Controller[];
  caBundle: string;
  admin: { username: string; passwordFile: string };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const readState = () => JSON.parse(readFileSync(stateFile, 'utf8')) as State;

let running: { child: ChildProcess; output: () => string } | undefined;
const pidsSeen = new Set<number>();

after(async () => {
  // Leave nothing behind when a test failed half-way: stop the demo, then kill any controller it left running.
  if (running && running.child.exitCode === null && running.child.signalCode === null) {
    const exited = new Promise((resolve) => running!.child.once('exit', resolve));
    running.child.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 30_000))]);
  }
  if (existsSync(stateFile)) for (const controller of readState().controllers) pidsSeen.add(controller.pid);
  for (const pid of pidsSeen) if (alive(pid)) process.kill(pid, 'SIGKILL');
  running?.child.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

async function runDemo() {
  const child = spawn(edgeward, ['demo', '--data', data], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, EDGEWARD_AGENT_REGISTRY: join(root, 'agents') } });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  running = { child, output: () => output };
  const deadline = Date.now() + 240_000;
  while (!output.includes('Press Ctrl-C to stop.')) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`demo did not come up:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  for (const controller of readState().controllers) pidsSeen.add(controller.pid);
  return running;
}

async function stopDemo(demo: { child: ChildProcess }, signal: NodeJS.Signals): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => demo.child.once('exit', (code) => resolve(code)));
  demo.child.kill(signal);
  return exited;
}

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}\n--- demo output ---\n${running?.output() ?? ''}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function clusterList(socket: string): Promise<MemberRow[]> {
  const response = await callAgent(socket, 'cluster.list', {}, 15_000);
  if (!response.ok) throw new Error(`cluster.list: ${response.error}`);
  return response.result as MemberRow[];
}

/** `agent cluster list` on the leader (the one ctrl1 names): three connected voters, one of them the leader. */
async function formedCluster(state: State): Promise<MemberRow[]> {
  return until('three connected voters and one leader', async () => {
    const leaderId = (await clusterList(state.controllers[0]!.agentSocket)).find((row) => row.leader)?.id;
    const leader = state.controllers.find((controller) => controller.id === leaderId);
    if (!leader) return undefined;
    const rows = await clusterList(leader.agentSocket);
    return rows.length === 3 && rows.every((row) => row.voter && row.connected) && rows.filter((row) => row.leader).length === 1 ? rows : undefined;
  });
}

async function loginEverywhere(state: State, password: string): Promise<void> {
  const http = new HttpsClient(readFileSync(state.caBundle, 'utf8'));
  try {
    for (const controller of state.controllers) {
      const token = await until(`a login on ${controller.id}`, async () => {
        const login = await http.post(`${controller.managementApi}/authenticate?method=password`, { body: { username: state.admin.username, password } });
        return login.status === 200 ? (login.json.data.token as string) : undefined;
      });
      const identities = await http.get(`${controller.managementApi}/identities`, { headers: { 'zt-session': token } });
      assert.equal(identities.status, 200, `${controller.id}: ${identities.text}`);
      assert.equal(identities.json.data.filter((identity: { isDefaultAdmin: boolean }) => identity.isDefaultAdmin).length, 1, controller.id);
    }
  } finally {
    http.close();
  }
}

let firstState: State;
let password: string;

test('first start: three controllers formed into one cluster, described in demo.json', async () => {
  const demo = await runDemo();
  const state = readState();
  firstState = state;
  assert.deepEqual(Object.keys(state).sort(), ['admin', 'caBundle', 'controllers']);
  assert.deepEqual(
    state.controllers.map((controller) => controller.id),
    ids,
  );
  for (const controller of state.controllers) {
    assert.deepEqual(Object.keys(controller).sort(), controllerKeys);
    assert.match(controller.clientApi, /^https:\/\/127\.0\.0\.1:\d+\/edge\/client\/v1$/);
    assert.match(controller.managementApi, /^https:\/\/127\.0\.0\.1:\d+\/edge\/management\/v1$/);
    assert.ok(alive(controller.pid), `${controller.id} is running`);
    assert.ok(demo.output().includes(controller.managementApi), `${controller.id}'s URLs are printed`);
    assert.ok(demo.output().includes(controller.clientApi));
  }
  assert.equal(new Set(state.controllers.map((controller) => new URL(controller.managementApi).port)).size, 3, 'each controller has its own port');
  assert.equal(new Set(state.controllers.map((controller) => controller.pid)).size, 3);
  assert.ok(demo.output().includes(state.admin.passwordFile), 'where the password is, is printed');
  assert.match(demo.output(), /created the admin identity 'admin'/);
  assert.match(demo.output(), /added ctrl2 .* to the cluster/);
  assert.match(demo.output(), /added ctrl3 .* to the cluster/);

  const rows = await formedCluster(state);
  assert.deepEqual(rows.map((row) => row.id).sort(), ids);

  assert.equal(statSync(state.admin.passwordFile).mode & 0o777, 0o600);
  password = readFileSync(state.admin.passwordFile, 'utf8').trim();
  assert.ok(password.length >= 20);
  for (const controller of state.controllers) assert.ok(!readFileSync(controller.logFile, 'utf8').includes(password), 'the password is never logged');
  assert.ok(!demo.output().includes(password));

  await loginEverywhere(state, password);
  const http = new HttpsClient(readFileSync(state.caBundle, 'utf8'));
  try {
    for (const controller of state.controllers) {
      const health = await http.get(controller.healthChecks);
      assert.equal(health.json.data.healthy, true, controller.id);
      const metrics = await http.get(controller.metrics);
      assert.match(metrics.text, /edgeward_raft_applied_index/);
    }
  } finally {
    http.close();
  }
});

test('SIGKILL of a controller: the supervisor restarts it with a new pid in demo.json and it rejoins', async () => {
  const victim = firstState.controllers.find((controller) => controller.id === 'ctrl2')!;
  process.kill(victim.pid, 'SIGKILL');
  const restarted = await until('ctrl2 restarted with a new pid in demo.json', async () => {
    const current = readState().controllers.find((controller) => controller.id === 'ctrl2')!;
    return current.pid !== victim.pid && alive(current.pid) ? current : undefined;
  });
  pidsSeen.add(restarted.pid);
  assert.match(running!.output(), /controller ctrl2 exited \(signal SIGKILL\); restarting it in 1 s/);
  assert.match(running!.output(), new RegExp(`controller ctrl2 restarted \\(pid ${restarted.pid}\\)`));
  assert.equal(alive(victim.pid), false);

  const state = readState();
  const others = state.controllers.filter((controller) => controller.id !== 'ctrl2');
  assert.deepEqual(
    others.map((controller) => controller.pid),
    firstState.controllers.filter((controller) => controller.id !== 'ctrl2').map((controller) => controller.pid),
    'the others were left alone',
  );
  const rows = await formedCluster(state);
  assert.ok(rows.find((row) => row.id === 'ctrl2')?.connected, 'ctrl2 is connected again');
  await until('ctrl2 to know the leader', async () => (await clusterList(restarted.agentSocket)).some((row) => row.leader));
  await loginEverywhere(state, password);
});

test('SIGINT stops every controller and removes their agent sockets', async () => {
  const state = readState();
  assert.equal(await stopDemo(running!, 'SIGINT'), 0);
  assert.match(running!.output(), /stopped\./);
  for (const pid of pidsSeen) assert.equal(alive(pid), false, `controller pid ${pid} is gone`);
  for (const controller of state.controllers) assert.equal(existsSync(controller.agentSocket), false, `${controller.id}'s agent socket is removed`);
});

test('a second start reuses the data and the password and forms the same cluster without initializing it again', async () => {
  const again = await runDemo();
  const state = readState();
  assert.equal(readFileSync(state.admin.passwordFile, 'utf8').trim(), password);
  assert.doesNotMatch(again.output(), /created the admin identity|initialized a new cluster|added ctrl/);
  assert.deepEqual(
    state.controllers.map((controller) => controller.managementApi),
    firstState.controllers.map((controller) => controller.managementApi),
    'the controllers keep their ports',
  );
  for (const controller of state.controllers) assert.ok(alive(controller.pid));
  const rows = await formedCluster(state);
  assert.deepEqual(rows.map((row) => row.id).sort(), ids);
  await loginEverywhere(state, password);

  assert.equal(await stopDemo(again, 'SIGTERM'), 0);
  for (const controller of state.controllers) {
    assert.equal(alive(controller.pid), false);
    assert.equal(existsSync(controller.agentSocket), false);
  }
});
