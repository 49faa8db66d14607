// The files committed here must be what `./edgeward gen dashboards` writes today with its defaults: a change to a
// dashboard, a query or the provisioning that was not generated again fails here. EDGEWARD_REWRITE=1 writes them
// instead of comparing.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { generatedFiles } from '../generate/write-dashboards.ts';

const folder = fileURLToPath(new URL('./', import.meta.url));
const rewrite = process.env.EDGEWARD_REWRITE === '1';
const howToRewrite = 'run ./edgeward gen dashboards grafana/generated (or this test with EDGEWARD_REWRITE=1) and commit the result';

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [relative(folder, path).split('\\').join('/')];
  });
}

test('grafana/generated holds what ./edgeward gen dashboards writes with its defaults', () => {
  const files = generatedFiles();
  for (const file of files) {
    const path = join(folder, ...file.path.split('/'));
    if (rewrite) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, file.text);
    }
    let committed: string | undefined;
    try {
      committed = readFileSync(path, 'utf8');
    } catch {
      committed = undefined;
    }
    assert.ok(committed === file.text, `grafana/generated/${file.path} is ${committed === undefined ? 'missing' : 'stale'}: ${howToRewrite}`);
  }
  const expected = new Set(files.map((file) => file.path));
  const extra = filesUnder(folder).filter((path) => !expected.has(path) && !path.endsWith('.test.ts'));
  assert.deepEqual(extra, [], `grafana/generated has files the generator no longer writes: delete them, or ${howToRewrite}`);
});
