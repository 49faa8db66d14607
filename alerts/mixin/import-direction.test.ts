// alerts/ and grafana/ import one way: grafana/ reads the alert catalogue and the monitoring mixin from alerts/,
// and nothing in alerts/ imports grafana/ (the `gen` command that runs both is put together in server/cli/).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';

const root = new URL('../../', import.meta.url).pathname;

function* typescriptFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* typescriptFiles(path);
    else if (/\.tsx?$/.test(name)) yield path;
  }
}

test('no module of alerts/, tests included, imports from grafana/', () => {
  const imports: string[] = [];
  for (const file of typescriptFiles(join(root, 'alerts'))) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, index) => {
        if (/(from|import)\s*\(?\s*['"](\.\.\/)+grafana\//.test(line)) imports.push(`${relative(root, file)}:${index + 1}: ${line.trim()}`);
      });
  }
  assert.deepEqual(imports, []);
});
