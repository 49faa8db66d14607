// The controller's Node flags reach it however it is started: through the `edgeward` script (and so the systemd
// unit), and through the test fixture the benchmarks use.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { initPki } from '../pki/pki-directory.ts';
import { ControllerFixture } from '../../test/support/controller-fixture.ts';
import { controllerNodeFlags, nodeFlagsFor } from './node-flags.ts';

const script = fileURLToPath(new URL('../../edgeward', import.meta.url));

test('only `controller run` gets the controller flags', () => {
  assert.deepEqual(nodeFlagsFor(['controller', 'run', 'ctrl.yml']), controllerNodeFlags);
  assert.ok(controllerNodeFlags.length > 0);
  for (const args of [['controller', 'validate', 'ctrl.yml'], ['router', 'run', 'r.yml'], ['agent', 'cluster', 'list'], ['run', 'controller'], []]) assert.deepEqual(nodeFlagsFor(args), [], args.join(' '));
});

test('the edgeward script starts `controller run` with the same flags, and other commands without them', () => {
  // A stand-in `node` first on the PATH prints the arguments the script would start Node with.
  const bin = mkdtempSync(join(tmpdir(), 'edgeward-fake-node-'));
  try {
    writeFileSync(join(bin, 'node'), '#!/bin/sh\nprintf "%s\\n" "$@"\n');
    chmodSync(join(bin, 'node'), 0o755);
    const nodeArgs = (...args: string[]) => {
      const out = execFileSync('bash', [script, ...args], { env: { ...process.env, PATH: `${bin}:${process.env.PATH}` }, encoding: 'utf8' }).trim().split('\n');
      return out.slice(0, out.findIndex((arg) => arg.endsWith('/server/cli/main.ts')));
    };
    const run = nodeArgs('controller', 'run', '/etc/edgeward/ctrl.yml');
    for (const flag of controllerNodeFlags) assert.ok(run.includes(flag), `${flag} in ${run.join(' ')}`);
    const validate = nodeArgs('controller', 'validate', '/etc/edgeward/ctrl.yml');
    for (const flag of controllerNodeFlags) assert.ok(!validate.includes(flag), `${flag} not in ${validate.join(' ')}`);
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
});

test('a controller started by the test fixture runs with the flags', async () => {
  const root = mkdtempSync(join(tmpdir(), 'edgeward-node-flags-'));
  const pkiDir = join(root, 'pki');
  await initPki(pkiDir, { trustDomain: 'edgeward.test' });
  const controller = await ControllerFixture.create({ pkiDir, id: 'flags1' });
  try {
    const cmdline = readFileSync(`/proc/${controller.child!.pid}/cmdline`, 'utf8').split('\0');
    for (const flag of controllerNodeFlags) assert.ok(cmdline.includes(flag), `${flag} in ${cmdline.join(' ')}`);
  } finally {
    await controller.dispose();
    rmSync(root, { recursive: true, force: true });
  }
});
