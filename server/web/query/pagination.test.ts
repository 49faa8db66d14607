import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EdgeError } from '../../edge/edge-error.ts';
import { httpStatusOf } from '../api-error.ts';
import { DEFAULT_LIMIT, MAX_LIMIT, MAX_OFFSET, normalizeLimit, normalizeOffset, parsePagination, readLimit, readOffset } from './pagination.ts';

function paginationError(query: { limit?: string | string[]; offset?: string | string[] }): EdgeError {
  try {
    parsePagination(query);
  } catch (error) {
    assert.ok(error instanceof EdgeError);
    return error;
  }
  assert.fail(`expected ${JSON.stringify(query)} to be rejected`);
}

describe('parsePagination: limit', () => {
  const limit = (raw: string | string[] | undefined) => parsePagination({ limit: raw }).limit;

  it('uses the bounds the controller uses', () => {
    assert.equal(DEFAULT_LIMIT, 10);
    assert.equal(MAX_LIMIT, 500);
    assert.equal(MAX_OFFSET, 100_000);
  });

  it('defaults to 10 when missing or empty', () => {
    assert.equal(limit(undefined), 10);
    assert.equal(limit(''), 10);
    assert.equal(limit([]), 10);
  });

  it('defaults to 10 for 0 and anything below -1', () => {
    assert.equal(limit('0'), 10);
    assert.equal(limit('-2'), 10);
    assert.equal(limit('-1000'), 10);
  });

  it('caps -1 ("unlimited") at the maximum of 500', () => {
    assert.equal(limit('-1'), 500);
  });

  it('passes 1..500 through and caps anything larger at 500', () => {
    assert.equal(limit('1'), 1);
    assert.equal(limit('25'), 25);
    assert.equal(limit('500'), 500);
    assert.equal(limit('501'), 500);
    assert.equal(limit('99999999999999999999'), 500);
  });

  it('reads the first of repeated values and accepts a leading +', () => {
    assert.equal(limit(['7', '9']), 7);
    assert.equal(limit('+5'), 5);
  });

  it('rejects a non-integer with INVALID_PAGINATION naming the field', () => {
    for (const bad of ['abc', '1.5', '1e2', ' 5', '5 ', '0x10', '-', '--1']) {
      const error = paginationError({ limit: bad });
      assert.equal(error.code, 'INVALID_PAGINATION', bad);
      assert.equal(httpStatusOf(error), 400);
      assert.deepEqual(error.cause, { field: 'limit', reason: `expected an integer for limit, found '${bad}'`, value: bad });
    }
  });
});

describe('parsePagination: offset', () => {
  const offset = (raw: string | string[] | undefined) => parsePagination({ offset: raw }).offset;

  it('defaults to 0 when missing or empty', () => {
    assert.equal(offset(undefined), 0);
    assert.equal(offset(''), 0);
  });

  it('clamps to 0..100000', () => {
    assert.equal(offset('0'), 0);
    assert.equal(offset('30'), 30);
    assert.equal(offset('-5'), 0);
    assert.equal(offset('100000'), 100_000);
    assert.equal(offset('100001'), 100_000);
  });

  it('rejects a non-integer with INVALID_PAGINATION naming the field', () => {
    for (const bad of ['abc', '1.5', 'ten']) {
      const error = paginationError({ offset: bad });
      assert.equal(error.code, 'INVALID_PAGINATION');
      assert.deepEqual(error.cause, { field: 'offset', reason: `expected an integer for offset, found '${bad}'`, value: bad });
    }
  });

  it('checks both parameters together', () => {
    assert.deepEqual(parsePagination({ limit: '20', offset: '40' }), { limit: 20, offset: 40 });
    assert.deepEqual(parsePagination({}), { limit: 10, offset: 0 });
  });
});

describe('readLimit / readOffset / normalizers', () => {
  it('report absence as undefined so other sources can fill in', () => {
    assert.equal(readLimit(undefined), undefined);
    assert.equal(readLimit(''), undefined);
    assert.equal(readOffset(undefined), undefined);
    assert.equal(readOffset(['']), undefined);
  });

  it('apply the same bounds to numbers from other sources', () => {
    assert.deepEqual([0, -1, -2, 1, 500, 501].map(normalizeLimit), [10, 500, 10, 1, 500, 500]);
    assert.deepEqual([-1, 0, 5, 100_001].map(normalizeOffset), [0, 0, 5, 100_000]);
  });
});
