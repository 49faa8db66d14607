// Runs every evaluator scenario in testdata/ (one test per file) and fails with the commands whose output changed.
// EDGEWARD_REWRITE=1 rewrites the scenarios with the actual output instead.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { runScenario } from './scenario-runner.ts';

const dir = new URL('./testdata/', import.meta.url);
const scenarios = readdirSync(dir)
  .filter((name) => name.endsWith('.txt'))
  .sort();

test('the testdata folder holds evaluator scenarios', () => {
  assert.ok(scenarios.length > 0, `no scenarios in ${dir.pathname}`);
});

for (const name of scenarios) {
  test(`evaluator scenario ${name}`, () => {
    const path = new URL(name, dir);
    const text = readFileSync(path, 'utf8');
    const result = runScenario(text, name);
    if (process.env.EDGEWARD_REWRITE === '1') {
      if (result.rewritten !== text) writeFileSync(path, result.rewritten);
      return;
    }
    assert.ok(result.mismatches.length === 0, `${result.mismatches.join('\n\n')}\n\n(rerun with EDGEWARD_REWRITE=1 to accept the actual output)`);
  });
}
