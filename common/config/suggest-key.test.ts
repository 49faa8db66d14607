import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { suggestKey } from './suggest-key.ts';

describe('suggestKey', () => {
  const keys = ['snapshotInterval', 'snapshotThreshold', 'dataDir', 'metrics', 'cluster'];

  it('suggests a key that differs only in case', () => {
    assert.equal(suggestKey('datadir', keys), 'dataDir');
  });

  it('suggests a close misspelling', () => {
    assert.equal(suggestKey('snapshotIntervall', keys), 'snapshotInterval');
    assert.equal(suggestKey('metric', keys), 'metrics');
    assert.equal(suggestKey('clustr', keys), 'cluster');
  });

  it('stays quiet when nothing is close', () => {
    assert.equal(suggestKey('listener', keys), undefined);
    assert.equal(suggestKey('v', ['x']), undefined);
  });
});
