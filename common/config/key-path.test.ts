import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatKeyPath, parseKeyPath } from './key-path.ts';

describe('key paths', () => {
  it('formats keys with dots and indexes with brackets', () => {
    assert.equal(formatKeyPath(['web', 0, 'bindPoints', 0, 'address']), 'web[0].bindPoints[0].address');
    assert.equal(formatKeyPath([]), '');
    assert.equal(formatKeyPath(['events', 'a.b', 'handler']), 'events["a.b"].handler');
    assert.equal(formatKeyPath(['identity', 'server_cert']), 'identity.server_cert');
  });

  it('parses what it formats', () => {
    for (const path of [['web', 0, 'bindPoints', 12, 'address'], ['events', 'odd "name"', 'x'], ['a-b', 'c'], [] as never[]]) {
      assert.deepEqual(parseKeyPath(formatKeyPath(path)), path);
    }
  });

  it('rejects malformed text', () => {
    for (const bad of ['.a', 'a..b', 'a[0]b', 'a[x]', 'a[', 'a b']) assert.equal(parseKeyPath(bad), undefined, bad);
  });
});
