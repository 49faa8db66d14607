import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SourceConnections } from './source-connections.ts';

test('each source has its own count up to the limit, freed as its connections close', () => {
  const sources = new SourceConnections(2);
  assert.equal(sources.add('10.0.0.1'), true);
  assert.equal(sources.add('10.0.0.1'), true);
  assert.equal(sources.add('10.0.0.1'), false);
  assert.equal(sources.add('10.0.0.2'), true, 'another address is not affected');
  assert.equal(sources.count('10.0.0.1'), 2, 'a refused connection is not counted');
  sources.remove('10.0.0.1');
  assert.equal(sources.add('10.0.0.1'), true);
  sources.remove('10.0.0.2');
  assert.equal(sources.count('10.0.0.2'), 0);
});
