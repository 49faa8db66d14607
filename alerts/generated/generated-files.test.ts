// The generated files committed here must be what the generators write today: a change to a rule, a test or the
// routing that was not generated again fails here. EDGEWARD_REWRITE=1 writes them instead of comparing.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { alertGenerators } from '../cli/gen-command.ts';

const folder = new URL('./', import.meta.url);
const rewrite = process.env.EDGEWARD_REWRITE === '1';

// The dashboards have their own committed copy and check, in grafana/generated.
assert.deepEqual(alertGenerators.map((generator) => generator.name), ['rules', 'alertmanager']);

for (const generator of alertGenerators) {
  test(`alerts/generated holds what ./edgeward gen ${generator.name} writes with its defaults`, () => {
    const outputs = generator.outputs(new Map());
    assert.ok(typeof outputs !== 'string', String(outputs));
    for (const file of outputs) {
      const path = new URL(file.name, folder);
      if (rewrite) writeFileSync(path, file.text);
      let committed: string | undefined;
      try {
        committed = readFileSync(path, 'utf8');
      } catch {
        committed = undefined;
      }
      assert.ok(
        committed === file.text,
        `alerts/generated/${file.name} is ${committed === undefined ? 'missing' : 'stale'}: run ./edgeward gen ${generator.name} alerts/generated (or this test with EDGEWARD_REWRITE=1) and commit the result`,
      );
    }
  });
}
