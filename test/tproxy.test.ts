// tproxy mode as it runs for real, which needs root: inside a network namespace this test creates (`unshare
// --net`), a controller and two routers, r1 intercepting with its nameserver and nftables rules, r2 hosting; the
// scenario (test/support/tproxy-scenario.ts) resolves the service's names through r1's nameserver and reaches the
// server behind r2 by name, by a wildcard name and by address. Skipped, saying why, where a namespace or nft is not
// available (not root, no unshare, no nftables).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const scenario = fileURLToPath(new URL('./support/tproxy-scenario.ts', import.meta.url));
const loader = fileURLToPath(new URL('../node_modules/tsx/dist/loader.mjs', import.meta.url));

function unavailable(): string | undefined {
  const probe = spawnSync('unshare', ['--net', 'sh', '-c', 'ip link set lo up && nft list ruleset'], { encoding: 'utf8', timeout: 10_000 });
  if (probe.error) return `cannot run unshare: ${probe.error.message}`;
  if (probe.status !== 0) return `cannot create a network namespace with nftables here (root and the nftables package are needed): ${probe.stderr.trim()}`;
  return undefined;
}

test('tproxy: the nameserver answers the intercepted names and nftables sends their connections over the overlay', { timeout: 240_000 }, async (t) => {
  const reason = unavailable();
  if (reason) {
    t.skip(reason);
    return;
  }
  const child = spawn('unshare', ['--net', '--', process.execPath, '--import', loader, scenario], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', (exitCode) => resolve(exitCode)));
  assert.equal(code, 0, output.slice(-8000));
  assert.match(output, /tproxy scenario passed/);
});
