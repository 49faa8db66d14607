// Hostile config files through the real command line, as an operator (or whoever can write the file) would run them:
// `controller validate` and `router validate` refuse each with the usual problem line and exit code, and never crash.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';

const edgeward = fileURLToPath(new URL('../edgeward', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'edgeward-config-limits-'));
after(() => rmSync(root, { recursive: true, force: true }));

const nestedMap = (depth: number, leaf: string) => `${'{a: '.repeat(depth)}${leaf}${'}'.repeat(depth)}`;

/** Each hostile shape, after a first line, and the problem line it must give (line, rule, message). */
const files: Record<string, { yaml: string; expected: RegExp }> = {
  // `a: ` and 20,000 of `[` then `]`: what once took the yaml parser down.
  'flow brackets 20,000 deep': {
    yaml: `a: ${'['.repeat(20_000)}${']'.repeat(20_000)}\n`,
    expected: /:2: error: the document nests deeper than 64 levels of mappings and sequences; it was not parsed \(rule: yaml-max-depth\)/,
  },
  'block mappings 1,000 deep': {
    yaml: Array.from({ length: 1000 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n'),
    expected: /:66: error: the document nests deeper than 64 levels of mappings and sequences; it was not parsed \(rule: yaml-max-depth\)/,
  },
  'sequences 5,000 deep on one line': {
    yaml: `a: ${'- '.repeat(5000)}x\n`,
    expected: /:2: error: the document nests deeper than 64 levels .* \(rule: yaml-max-depth\)/,
  },
  '120,000 items': {
    yaml: `a:\n${'- 1\n'.repeat(120_000)}`,
    expected: /:100001: error: the document has more than 100000 keys and items in all; it was not parsed \(rule: yaml-max-members\)/,
  },
  'aliases that expand past the depth limit': {
    yaml: `base: &deep ${nestedMap(40, '1')}\nuse: ${nestedMap(30, '*deep')}\n`,
    expected: /:3: error: use\.a\.a\.a(\.a)*: the document nests deeper than 64 levels of objects and arrays once its aliases are expanded \(rule: yaml-max-depth\)/,
  },
  'aliases that expand past the member limit': {
    yaml: `list: &items [${Array.from({ length: 2000 }, (_, i) => i).join(', ')}]\ncopies: [${Array.from({ length: 60 }, () => '*items').join(', ')}]\n`,
    expected: /:3: error: copies\[\d+\]: the document has more than 100000 keys and items in all once its aliases are expanded \(rule: yaml-max-members\)/,
  },
  'an alias inside its own anchor': {
    yaml: 'loop: &self [1, *self]\n',
    expected: /:2: error: loop\[1\](\[1\])*: an alias refers to the collection that holds it, so the data nests without end \(rule: yaml-max-depth\)/,
  },
  'two megabytes': {
    yaml: `a: "${'x'.repeat(2 * 1024 * 1024)}"\n`,
    expected: /(:1)?: error: the file is 2097163 bytes, over the limit of 1048576; it was not parsed \(rule: yaml-max-bytes\)/,
  },
};

for (const [what, { yaml, expected }] of Object.entries(files)) {
  test(`controller validate and router validate refuse ${what}, with the problem's line and rule, and exit 1`, () => {
    for (const [kind, first] of [['controller', 'v: 3'], ['router', 'v: 3']] as const) {
      const file = join(root, `${kind}-${what.replace(/\W+/g, '-')}.yml`);
      writeFileSync(file, `${first}\n${yaml}`);
      const result = spawnSync(edgeward, [kind, 'validate', file], { encoding: 'utf8', timeout: 60_000, maxBuffer: 16 * 1024 * 1024 });
      assert.equal(result.signal, null, `${kind}: killed by ${result.signal}`);
      assert.equal(result.status, 1, `${kind} exit code; stderr: ${result.stderr.slice(0, 2000)}`);
      assert.match(result.stderr, new RegExp(file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&') + expected.source), `${kind}: ${result.stderr.slice(0, 2000)}`);
      assert.doesNotMatch(result.stderr, /Maximum call stack|FATAL|heap out of memory|    at /, `${kind}: a crash`);
    }
  });
}
