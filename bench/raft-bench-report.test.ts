import assert from 'node:assert/strict';
import { test } from 'node:test';
import { markedSections, percentile, replaceSection } from './raft-bench-report.ts';

test('percentiles pick the nearest rank', () => {
  const values = Array.from({ length: 100 }, (_, i) => i + 1);
  assert.equal(percentile(values, 0.5), 50);
  assert.equal(percentile(values, 0.99), 99);
  assert.equal(percentile([], 0.5), 0);
});

test('a marked section is appended once and then replaced in place, leaving the rest alone', () => {
  const first = replaceSection('# Results\n\nHTTP table\n', 'raft', '## Raft', 'old');
  assert.match(first, /HTTP table\n\n<!-- raft-bench:start -->\n## Raft\n\nold\n<!-- raft-bench:end -->\n$/);
  const second = replaceSection(`${first}\ntrailer\n`, 'raft', '## Raft', 'new');
  assert.ok(second.includes('new') && !second.includes('old') && second.includes('HTTP table') && second.includes('trailer'));
  assert.deepEqual(markedSections(second).length, 1);
});
