// Runs every raft interaction script in testdata/ (one test per file) and fails with a line diff of each command
// whose output changed. EDGEWARD_REWRITE=1 rewrites the scripts with the actual output instead.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { test } from 'node:test';
import { checkScriptFile } from './script-runner.ts';

const dir = new URL('./testdata/', import.meta.url);
const scripts = readdirSync(dir)
  .filter((name) => name.endsWith('.txt'))
  .sort();

test('the testdata folder holds interaction scripts', () => {
  assert.ok(scripts.length > 0, `no scripts in ${dir.pathname}`);
});

for (const name of scripts) {
  test(`interaction script ${name}`, () => {
    const mismatches = checkScriptFile(new URL(name, dir).pathname, name);
    assert.ok(mismatches.length === 0, `${mismatches.join('\n\n')}\n\n(rerun with EDGEWARD_REWRITE=1 to accept the actual output)`);
  });
}
