import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { productionPackages, type PackageLock } from './production-packages.ts';

test('the closure follows Node resolution (nested copies first) and leaves out dev and excluded packages', () => {
  const lock: PackageLock = {
    packages: {
      '': { dependencies: { a: '1', tsx: '4' } },
      'node_modules/a': { dependencies: { b: '2', c: '1' } },
      'node_modules/a/node_modules/b': { dependencies: { c: '1' } },
      'node_modules/b': {},
      'node_modules/c': { optionalDependencies: { d: '1' } },
      'node_modules/tsx': { dependencies: { esbuild: '1' } },
      'node_modules/esbuild': {},
      'node_modules/typescript': { dev: true },
    },
  };
  assert.deepEqual(productionPackages(lock, ['tsx', 'typescript']), ['node_modules/a', 'node_modules/a/node_modules/b', 'node_modules/c']);
});

test("the repository's release needs next and react but neither tsx, esbuild nor typescript", () => {
  const lock = JSON.parse(readFileSync(new URL('../../../package-lock.json', import.meta.url), 'utf8')) as PackageLock;
  const keys = productionPackages(lock, ['tsx', 'typescript']);
  for (const needed of ['node_modules/next', 'node_modules/react', 'node_modules/react-dom', 'node_modules/koa', 'node_modules/level']) assert.ok(keys.includes(needed), needed);
  for (const absent of ['node_modules/tsx', 'node_modules/esbuild', 'node_modules/typescript', 'node_modules/playwright-core']) assert.ok(!keys.includes(absent), absent);
});
