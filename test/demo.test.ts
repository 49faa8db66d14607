// The README's run command as a user runs it: ./edgeward demo comes up, writes demo.json, serves the admin, and
// stops everything on Ctrl-C.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { HttpsClient } from './support/https-client.ts';

const edgeward = fileURLToPath(new URL('../edgeward', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'edgeward-demo-'));
after(() => rmSync(root, { recursive: true, force: true }));

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function runDemo(data: string) {
  const child = spawn(edgeward, ['demo', '--data', data], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, EDGEWARD_AGENT_REGISTRY: join(root, 'agents') } });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 90_000;
  while (!output.includes('Press Ctrl-C to stop.')) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`demo did not come up:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, output: () => output };
}

test('./edgeward demo starts the appliance, describes it in demo.json and stops cleanly on SIGINT', async () => {
  const data = join(root, 'data');
  const demo = await runDemo(data);
  const state = JSON.parse(readFileSync(join(data, 'demo.json'), 'utf8'));
  assert.deepEqual(Object.keys(state).sort(), ['admin', 'caBundle', 'controllers']);
  assert.equal(state.controllers.length, 1);
  const controller = state.controllers[0];
  assert.deepEqual(Object.keys(controller).sort(), ['agentSocket', 'clientApi', 'config', 'dataDir', 'eventsFile', 'healthChecks', 'id', 'logFile', 'managementApi', 'metrics', 'pid'].sort());
  assert.match(controller.clientApi, /^https:\/\/127\.0\.0\.1:\d+\/edge\/client\/v1$/);
  assert.match(controller.managementApi, /^https:\/\/127\.0\.0\.1:\d+\/edge\/management\/v1$/);
  assert.ok(alive(controller.pid));
  assert.ok(demo.output().includes(controller.managementApi), 'the URLs are printed');
  assert.ok(demo.output().includes(state.admin.passwordFile), 'where the password is, is printed');

  const passwordFile = state.admin.passwordFile as string;
  assert.equal(statSync(passwordFile).mode & 0o777, 0o600);
  const password = readFileSync(passwordFile, 'utf8').trim();
  assert.ok(password.length >= 20);
  assert.ok(!readFileSync(controller.logFile, 'utf8').includes(password), 'the password is never logged');
  assert.ok(!demo.output().includes(password));

  const http = new HttpsClient(readFileSync(state.caBundle, 'utf8'));
  try {
    const login = await http.post(`${controller.managementApi}/authenticate?method=password`, { body: { username: state.admin.username, password } });
    assert.equal(login.status, 200, login.text);
    const identities = await http.get(`${controller.managementApi}/identities`, { headers: { 'zt-session': login.json.data.token } });
    assert.equal(identities.json.data[0].isDefaultAdmin, true);
    const health = await http.get(controller.healthChecks);
    assert.equal(health.json.data.healthy, true);
    const metrics = await http.get(controller.metrics);
    assert.match(metrics.text, /edgeward_raft_applied_index/);
  } finally {
    http.close();
  }

  const exited = new Promise<number | null>((resolve) => demo.child.once('exit', (code) => resolve(code)));
  demo.child.kill('SIGINT');
  assert.equal(await exited, 0);
  assert.match(demo.output(), /stopped\./);
  assert.equal(alive(controller.pid), false, 'the controller process is gone');
  assert.equal(existsSync(controller.agentSocket), false, 'the agent socket is removed');

  // A second start reuses the PKI, the data and the admin password.
  const again = await runDemo(data);
  assert.equal(readFileSync(passwordFile, 'utf8').trim(), password);
  assert.ok(!again.output().includes('created the admin identity'));
  const stopped = new Promise<number | null>((resolve) => again.child.once('exit', (code) => resolve(code)));
  again.child.kill('SIGTERM');
  assert.equal(await stopped, 0);
});
