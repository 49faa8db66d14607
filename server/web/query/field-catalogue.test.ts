import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { describeType, fieldNames, findField, readList, readScalar, toInstant } from './field-catalogue.ts';
import type { FieldCatalogue } from './field-catalogue.ts';

describe('toInstant', () => {
  it('reads ISO strings, Dates and epoch milliseconds as the same instant', () => {
    const ms = Date.UTC(2026, 0, 1);
    assert.equal(toInstant('2026-01-01T00:00:00Z'), ms);
    assert.equal(toInstant('2026-01-01T01:00:00+01:00'), ms);
    assert.equal(toInstant(new Date(ms)), ms);
    assert.equal(toInstant(ms), ms);
  });

  it('gives undefined for anything that is not a valid instant', () => {
    for (const bad of ['not a date', new Date('nope'), Number.NaN, Number.POSITIVE_INFINITY, null, undefined, true, {}]) {
      assert.equal(toInstant(bad), undefined, String(bad));
    }
  });
});

describe('readScalar', () => {
  it('keeps values of the declared type and treats anything else as missing', () => {
    assert.equal(readScalar('string', 'x'), 'x');
    assert.equal(readScalar('string', 1), undefined);
    assert.equal(readScalar('number', 0), 0);
    assert.equal(readScalar('number', Number.NaN), undefined);
    assert.equal(readScalar('number', '1'), undefined);
    assert.equal(readScalar('boolean', false), false);
    assert.equal(readScalar('boolean', 'true'), undefined);
    assert.equal(readScalar('datetime', '2026-01-01T00:00:00Z'), Date.UTC(2026, 0, 1));
    assert.equal(readScalar('string', null), undefined);
  });
});

describe('readList', () => {
  it('reads a missing list as empty and skips non-string members', () => {
    assert.deepEqual(readList(['a', 'b']), ['a', 'b']);
    assert.deepEqual(readList(null), []);
    assert.deepEqual(readList('a'), []);
    assert.deepEqual(readList(['a', 1, null, 'b']), ['a', 'b']);
  });
});

describe('catalogue helpers', () => {
  const catalogue: FieldCatalogue<{ id: string }> = {
    id: { type: 'string', get: (e) => e.id },
    tags: { type: 'string[]', get: () => [] },
  };

  it('lists field names in declaration order', () => {
    assert.deepEqual(fieldNames(catalogue), ['id', 'tags']);
  });

  it('finds only declared fields, never inherited object keys', () => {
    assert.equal(findField(catalogue, 'id')?.type, 'string');
    assert.equal(findField(catalogue, 'constructor'), undefined);
    assert.equal(findField(catalogue, '__proto__'), undefined);
  });

  it('describes types for messages', () => {
    assert.equal(describeType('string[]'), 'a list of strings');
    assert.equal(describeType('datetime'), 'a datetime');
  });
});
