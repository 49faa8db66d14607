// The controller's Node flags reach it however it is started: through the `edgeward` script (and so the systemd
// unit), and through the test fixture the benchmarks use.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { initPki } from '../../common/pki/pki-directory.ts';
import { ControllerFixture } from '../../test/support/controller-fixture.ts';
import { launcherText } from './install/release-tree.ts';
import { controllerNodeFlags, nodeFlagsFor, v8PoolSize } from './node-flags.ts';
import { heapGrowthProbe } from './heap-growth-probe.ts';

const script = fileURLToPath(new URL('../../edgeward', import.meta.url));

test('only `controller run` gets the controller flags', () => {
  assert.deepEqual(nodeFlagsFor(['controller', 'run', 'ctrl.yml']), controllerNodeFlags());
  assert.ok(controllerNodeFlags().length > 0);
  for (const args of [['controller', 'validate', 'ctrl.yml'], ['router', 'run', 'r.yml'], ['agent', 'cluster', 'list'], ['run', 'controller'], []]) assert.deepEqual(nodeFlagsFor(args), [], args.join(' '));
});

test('V8 gets one helper thread per two CPUs, 1 to 4', () => {
  assert.deepEqual([1, 2, 3, 4, 5, 6, 8, 16, 64].map(v8PoolSize), [1, 1, 1, 2, 2, 3, 4, 4, 4]);
  assert.ok(controllerNodeFlags(2).includes('--v8-pool-size=1'));
  assert.ok(controllerNodeFlags(12).includes('--v8-pool-size=4'));
});

test('with the controller flags the heap stays within half again what it holds plus the young generation, however fast it allocates', () => {
  // 200 MiB held, and objects that outlive young collections made as fast as the process can: V8's own choice let
  // such a process peak at 4.1-4.6x what it held (750-830 MiB; see heapGrowingFlag), the flag at 1.9-2.3x. The slack
  // covers the young generation (32 MiB semi-spaces) and what is allocated while a collection's marking runs (60-140
  // MiB here, the most on an idle machine).
  const { heldBytes, peakBytes } = heapGrowthProbe(controllerNodeFlags(), 200, 3_000);
  const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
  assert.ok(peakBytes <= heldBytes * 1.5 + 256 * 2 ** 20, `peak heap used ${mib(peakBytes)} while holding ${mib(heldBytes)}`);
});

/**
 * The arguments a launcher script starts Node with, up to its entry point: stand-ins for `node` (prints its
 * arguments) and, when `cpus` is given, `nproc` come first on the PATH.
 */
function launchedNodeArgs(launcher: string, args: readonly string[], cpus?: number): string[] {
  const bin = mkdtempSync(join(tmpdir(), 'edgeward-fake-node-'));
  try {
    writeFileSync(join(bin, 'node'), '#!/bin/sh\nprintf "%s\\n" "$@"\n');
    chmodSync(join(bin, 'node'), 0o755);
    if (cpus !== undefined) {
      writeFileSync(join(bin, 'nproc'), `#!/bin/sh\necho ${cpus}\n`);
      chmodSync(join(bin, 'nproc'), 0o755);
    }
    const out = execFileSync(launcher, [...args], { env: { ...process.env, PATH: `${bin}:${process.env.PATH}` }, encoding: 'utf8' }).trim().split('\n');
    return out.slice(0, out.findIndex((arg) => /\/server\/cli\/main\.[tj]s$/.test(arg)));
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
}

test('the edgeward script starts `controller run` with the same flags, and other commands without them', () => {
  const run = launchedNodeArgs(script, ['controller', 'run', '/etc/edgeward/ctrl.yml']);
  for (const flag of controllerNodeFlags()) assert.ok(run.includes(flag), `${flag} in ${run.join(' ')}`);
  const validate = launchedNodeArgs(script, ['controller', 'validate', '/etc/edgeward/ctrl.yml']);
  for (const flag of controllerNodeFlags()) assert.ok(!validate.includes(flag), `${flag} not in ${validate.join(' ')}`);
  // The helper threads follow the machine's CPUs, as v8PoolSize says.
  for (const cpus of [1, 2, 6, 8, 32]) {
    const flags = launchedNodeArgs(script, ['controller', 'run', 'ctrl.yml'], cpus);
    for (const flag of controllerNodeFlags(cpus)) assert.ok(flags.includes(flag), `${cpus} CPUs: ${flag} in ${flags.join(' ')}`);
  }
});

test('the release launcher starts `controller run` with the same flags, and other commands without them', () => {
  const dir = mkdtempSync(join(tmpdir(), 'edgeward-launcher-'));
  try {
    const launcher = join(dir, 'edgeward');
    writeFileSync(launcher, launcherText());
    chmodSync(launcher, 0o755);
    for (const cpus of [1, 4, 8]) {
      const flags = launchedNodeArgs(launcher, ['controller', 'run', 'ctrl.yml'], cpus);
      for (const flag of controllerNodeFlags(cpus)) assert.ok(flags.includes(flag), `${cpus} CPUs: ${flag} in ${flags.join(' ')}`);
    }
    const validate = launchedNodeArgs(launcher, ['controller', 'validate', 'ctrl.yml'], 8);
    for (const flag of controllerNodeFlags(8)) assert.ok(!validate.includes(flag), `${flag} not in ${validate.join(' ')}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a controller started by the test fixture runs with the flags', async () => {
  const root = mkdtempSync(join(tmpdir(), 'edgeward-node-flags-'));
  const pkiDir = join(root, 'pki');
  await initPki(pkiDir, { trustDomain: 'edgeward.test' });
  const controller = await ControllerFixture.create({ pkiDir, id: 'flags1' });
  try {
    const cmdline = readFileSync(`/proc/${controller.child!.pid}/cmdline`, 'utf8').split('\0');
    for (const flag of controllerNodeFlags()) assert.ok(cmdline.includes(flag), `${flag} in ${cmdline.join(' ')}`);
  } finally {
    await controller.dispose();
    rmSync(root, { recursive: true, force: true });
  }
});
