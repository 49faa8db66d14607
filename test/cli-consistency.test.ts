// Every `./edgeward` command answers the same way: `--help` prints its help on stdout with exit 0; a wrong command
// line prints two lines on stderr (what is wrong, and which --help to read) with exit 2; and only `demo`, `test` and
// `install` install anything, never for `--help`, one at a time under a lock.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import type { CommandLine, ParseOutcome } from '../common/cli/command-line.ts';
import { allCommandLines, commandNames, testUsage } from '../server/cli/command-lines.ts';

const repo = fileURLToPath(new URL('..', import.meta.url));
const edgeward = join(repo, 'edgeward');
const scratch = mkdtempSync(join(tmpdir(), 'edgeward-cli-consistency-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const twoLines = (command: string) => new RegExp(`^edgeward ${command.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: .+\\nRun '\\./edgeward ${command.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} --help' for usage\\.\\n$`);

function show(outcome: ParseOutcome): string {
  return outcome.kind === 'usage-error' ? `usage error: ${outcome.command}: ${outcome.reason}` : outcome.kind;
}

test('the registry has every command the top-level usage lists', async () => {
  const lines = await allCommandLines();
  assert.deepEqual(
    lines.map((line) => line.name),
    commandNames,
  );
  const usage = readFileSync(join(repo, 'server/cli/main.ts'), 'utf8');
  for (const name of commandNames) assert.match(usage, new RegExp(`^  ${name}\\b`, 'm'), `the top-level usage lists ${name}`);
});

test('every subcommand, groups included, parses --help to its help, and a wrong flag or a missing argument to a usage error', async () => {
  let walked = 0;
  for (const line of await allCommandLines()) {
    for (const sub of line.subcommands) {
      walked++;
      const where = [line.name, ...sub.path].join(' ');
      const help = line.parse([...sub.path, '--help']);
      assert.equal(help.kind, 'help', `${where} --help: ${show(help)}`);
      assert.ok(help.kind === 'help' && help.text.trim().length > 0, `${where} --help has a text`);
      assert.equal(line.parse([...sub.path, '-h']).kind, 'help', `${where} -h`);

      const base = sub.example.length > 0 ? [...sub.path, ...sub.example] : sub.path;
      if (sub.example.length > 0 || !sub.needsArguments) {
        const runs = line.parse(base);
        assert.equal(runs.kind, 'run', `${where} ${sub.example.join(' ')}: ${show(runs)}`);
      }
      const wrong = line.parse([...base, '--no-such-flag']);
      assert.equal(wrong.kind, 'usage-error', `${where} --no-such-flag: ${show(wrong)}`);
      assertSuggestsHelp(line, wrong);
      if (sub.needsArguments) {
        const missing = line.parse(sub.path);
        assert.equal(missing.kind, 'usage-error', `${where} without its arguments: ${show(missing)}`);
        assertSuggestsHelp(line, missing);
      }
    }
  }
  assert.ok(walked > 80, `walked ${walked} subcommands`);
});

/** A usage error names a command whose --help is help. */
function assertSuggestsHelp(line: CommandLine, outcome: ParseOutcome): void {
  if (outcome.kind !== 'usage-error') return;
  assert.ok(outcome.command === line.name || outcome.command.startsWith(`${line.name} `), outcome.command);
  assert.ok(outcome.reason.length > 0 && !outcome.reason.includes('\n'), `one line: ${outcome.reason}`);
  const words = outcome.command.split(' ').slice(1);
  assert.equal(line.parse([...words, '--help']).kind, 'help', `'./edgeward ${outcome.command} --help' is help`);
}

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function run(file: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs the jobs two at a time. */
async function inPairs<T>(jobs: readonly (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = [];
  for (let i = 0; i < jobs.length; i += 2) results.push(...(await Promise.all(jobs.slice(i, i + 2).map((job) => job()))));
  return results;
}

/** A folder of stand-ins for the installers, each recording its call in `log`. */
function shimFolder(name: string, commands: readonly string[], script = 'echo "$(basename "$0") $*" >> "$SHIM_LOG"\n'): { bin: string; log: string; env: NodeJS.ProcessEnv } {
  const bin = join(scratch, name, 'bin');
  mkdirSync(bin, { recursive: true });
  const log = join(scratch, name, 'calls.log');
  writeFileSync(log, '');
  for (const command of commands) {
    writeFileSync(join(bin, command), `#!/bin/sh\n${script}`);
    chmodSync(join(bin, command), 0o755);
  }
  return { bin, log, env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}`, SHIM_LOG: log } };
}

const installers = ['apt-get', 'apt', 'dpkg', 'dpkg-query', 'sudo', 'npm', 'npx'];

test('through ./edgeward, each command answers --help with exit 0 and nothing on stderr, and a wrong flag with exit 2 and two lines', async () => {
  const lines = await allCommandLines();
  const shims = shimFolder('processes', installers);
  const jobs: (() => Promise<void>)[] = [];
  for (const line of lines) {
    jobs.push(async () => {
      const result = await run(edgeward, [line.name, '--help'], shims.env);
      assert.equal(result.code, 0, `${line.name} --help: ${result.stderr}`);
      assert.equal(result.stderr, '', `${line.name} --help`);
      const expected = line.parse(['--help']);
      assert.equal(result.stdout, expected.kind === 'help' ? expected.text : '', `${line.name} --help prints its parse's help`);
    });
    // `test` with a wrong flag would install and run the tests: its parse is checked above, not here.
    if (line.name === 'test') continue;
    jobs.push(async () => {
      const result = await run(edgeward, [line.name, '--no-such-flag'], shims.env);
      assert.equal(result.code, 2, `${line.name} --no-such-flag: ${result.stderr}`);
      assert.equal(result.stdout, '', `${line.name} --no-such-flag`);
      const outcome = line.parse(['--no-such-flag']);
      assert.ok(outcome.kind === 'usage-error');
      assert.match(result.stderr, twoLines(outcome.command));
      assert.equal(result.stderr.split('\n').length, 3, result.stderr);
    });
  }
  jobs.push(async () => {
    const result = await run(edgeward, ['frobnicate'], shims.env);
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '');
    assert.equal(result.stderr, "edgeward: unknown command 'frobnicate'\nRun './edgeward --help' for usage.\n");
  });
  jobs.push(async () => {
    const result = await run(edgeward, [], shims.env);
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^edgeward: identity overlay-network[\s\S]*install \[--root DIR\] \[--prefix DIR\][\s\S]*uninstall \[--root DIR\] \[--purge\][\s\S]*pack \[--out FILE\]/);
  });
  await inPairs(jobs);
  assert.equal(readFileSync(shims.log, 'utf8'), '', 'no command installed anything');
});

test('./edgeward demo --help and test --help install nothing, even where the installers would run', async () => {
  const shims = shimFolder('help', installers);
  const [demo, tests, demoData] = await inPairs([() => run(edgeward, ['demo', '--help'], shims.env), () => run(edgeward, ['test', '--help'], shims.env), () => run(edgeward, ['demo', '--data', '/nonexistent', '-h'], shims.env)]);
  assert.equal(demo!.code, 0, demo!.stderr);
  assert.match(demo!.stdout, /^Usage: \.\/edgeward demo \[--data <dir>\]/);
  assert.equal(demo!.stderr, '');
  assert.equal(demoData!.code, 0, demoData!.stderr);
  assert.equal(tests!.code, 0, tests!.stderr);
  assert.equal(tests!.stdout, testUsage, "the script's test help is the registry's");
  assert.equal(tests!.stderr, '');
  assert.equal(readFileSync(shims.log, 'utf8'), '', 'dpkg-query, apt-get, sudo and npm were never called');

  // The same shims do see an install: ensure-deps.sh asks dpkg-query about each Debian package (the check above can fail).
  const probe = await run(join(repo, 'scripts/ensure-deps.sh'), ['demo'], { ...shims.env });
  assert.match(readFileSync(shims.log, 'utf8'), /^dpkg-query /m, `ensure-deps.sh runs dpkg-query (exit ${probe.code}: ${probe.stderr})`);
});

test('a copy of ./edgeward without node_modules refuses other commands without installing, and still answers demo and test --help', async () => {
  const root = join(scratch, 'fresh-clone');
  mkdirSync(join(root, 'scripts'), { recursive: true });
  copyFileSync(edgeward, join(root, 'edgeward'));
  chmodSync(join(root, 'edgeward'), 0o755);
  for (const script of ['ensure-deps.sh', 'run-tests.sh']) {
    copyFileSync(join(repo, 'scripts', script), join(root, 'scripts', script));
    chmodSync(join(root, 'scripts', script), 0o755);
  }
  writeFileSync(join(root, 'package-lock.json'), '{}\n');
  const shims = shimFolder('fresh', installers);
  const [validate, version, demoHelp, testHelp] = await inPairs([
    () => run(join(root, 'edgeward'), ['controller', 'validate', 'ctrl.yml'], shims.env),
    () => run(join(root, 'edgeward'), ['version'], shims.env),
    () => run(join(root, 'edgeward'), ['demo', '--help'], shims.env),
    () => run(join(root, 'edgeward'), ['test', '--help'], shims.env),
  ]);
  for (const refused of [validate!, version!]) {
    assert.equal(refused.code, 1, refused.stderr);
    assert.equal(refused.stdout, '');
    assert.match(refused.stderr, /npm packages are not installed/);
    assert.match(refused.stderr, /'\.\/edgeward demo' or '\.\/edgeward test'/);
    assert.match(refused.stderr, /npm ci/);
  }
  assert.equal(demoHelp!.code, 0, demoHelp!.stderr);
  assert.match(demoHelp!.stdout, /^Usage: \.\/edgeward demo \[--data <dir>\]\n/);
  assert.equal(testHelp!.code, 0, testHelp!.stderr);
  assert.equal(testHelp!.stdout, testUsage);
  assert.equal(readFileSync(shims.log, 'utf8'), '', 'nothing was installed');
  assert.equal(existsSync(join(root, 'node_modules')), false);
});

/** A folder holding only a copy of scripts/ensure-deps.sh, as the root it installs into. */
function cloneWithEnsureDeps(name: string): { root: string; script: string } {
  const root = join(scratch, name);
  const script = join(root, 'scripts/ensure-deps.sh');
  mkdirSync(join(root, 'scripts'), { recursive: true });
  copyFileSync(join(repo, 'scripts/ensure-deps.sh'), script);
  chmodSync(script, 0o755);
  return { root, script };
}

test('ensure-deps.sh installs npm packages again only when package-lock.json changes, not when it is merely rewritten', async () => {
  const { root, script } = cloneWithEnsureDeps('stamp-clone');
  const lockFile = join(root, 'package-lock.json');
  writeFileSync(lockFile, '{"lockfileVersion":3}\n');
  const shims = shimFolder('stamp', ['npm'], 'echo "npm $*" >> "$SHIM_LOG"\nmkdir -p node_modules\n');
  const installs = () => readFileSync(shims.log, 'utf8').split('\n').filter((line) => line.startsWith('npm ci')).length;

  const first = await run(script, ['npm'], shims.env);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(installs(), 1);
  // Rewritten with the same content and a newer mtime, as a fresh checkout does: nothing to install.
  writeFileSync(lockFile, '{"lockfileVersion":3}\n');
  const later = new Date(Date.now() + 60_000);
  utimesSync(lockFile, later, later);
  const second = await run(script, ['npm'], shims.env);
  assert.equal(second.code, 0, second.stderr);
  assert.equal(installs(), 1, 'an unchanged lock file installed again');
  // A changed lock file installs again.
  writeFileSync(lockFile, '{"lockfileVersion":3,"packages":{}}\n');
  const third = await run(script, ['npm'], shims.env);
  assert.equal(third.code, 0, third.stderr);
  assert.equal(installs(), 2);
});

test('two ensure-deps.sh runs never install at once: the second waits for the lock, then finds the packages installed', async () => {
  const { root, script } = cloneWithEnsureDeps('lock-clone');
  writeFileSync(join(root, 'package-lock.json'), '{}\n');
  // npm ci that takes a second, logging when it starts and ends.
  const shims = shimFolder('lock', ['npm'], 'echo "start $$" >> "$SHIM_LOG"\nmkdir -p node_modules\nsleep 1\necho "end $$" >> "$SHIM_LOG"\n');
  const [first, second] = await Promise.all([run(script, ['npm'], shims.env), new Promise<Ran>((resolve) => setTimeout(() => resolve(run(script, ['npm'], shims.env)), 200))]);
  assert.equal(first!.code, 0, first!.stderr);
  assert.equal(second!.code, 0, second!.stderr);
  const calls = readFileSync(shims.log, 'utf8').trim().split('\n');
  assert.equal(calls.length, 2, `npm ran once:\n${calls.join('\n')}`);
  assert.match(calls[0]!, /^start (\d+)$/);
  assert.equal(calls[1], calls[0]!.replace('start', 'end'));
  assert.match(second!.stderr, /waiting for it/, 'the second run said it was waiting');
  assert.ok(existsSync(join(root, 'node_modules/.edgeward-installed')));
  assert.ok(existsSync(join(root, '.edgeward-deps.lock')));
});
