import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EdgeError } from '../../edge/edge-error.ts';
import { httpStatusOf } from '../api-error.ts';
import type { FieldCatalogue } from './field-catalogue.ts';
import { parseSortParam, sortableFields, sortFieldProblem, sortItems } from './sort.ts';

interface Row {
  readonly id: string;
  readonly name?: string;
  readonly size?: number;
  readonly isAdmin?: boolean;
  readonly createdAt?: string | Date | number;
  readonly tags?: readonly string[];
}

const catalogue: FieldCatalogue<Row> = {
  id: { type: 'string', get: (r) => r.id },
  name: { type: 'string', get: (r) => r.name },
  size: { type: 'number', get: (r) => r.size },
  isAdmin: { type: 'boolean', get: (r) => r.isAdmin },
  createdAt: { type: 'datetime', get: (r) => r.createdAt },
  tags: { type: 'string[]', get: (r) => r.tags },
};

function sortError(raw: string | string[]): EdgeError {
  try {
    parseSortParam(raw, catalogue);
  } catch (error) {
    assert.ok(error instanceof EdgeError);
    return error;
  }
  assert.fail(`expected ${JSON.stringify(raw)} to be rejected`);
}

const order = (rows: readonly Row[], sort: string) => sortItems(rows, parseSortParam(sort, catalogue) ?? [], catalogue).map((r) => r.id);

describe('parseSortParam', () => {
  it('reads a field with an optional, case-insensitive direction', () => {
    assert.deepEqual(parseSortParam('name', catalogue), [{ field: 'name', direction: 'asc' }]);
    assert.deepEqual(parseSortParam('name asc', catalogue), [{ field: 'name', direction: 'asc' }]);
    assert.deepEqual(parseSortParam('name DESC', catalogue), [{ field: 'name', direction: 'desc' }]);
  });

  it('reads comma-separated keys with any spacing', () => {
    const expected = [
      { field: 'createdAt', direction: 'desc' },
      { field: 'name', direction: 'asc' },
    ];
    assert.deepEqual(parseSortParam('createdAt desc,name', catalogue), expected);
    assert.deepEqual(parseSortParam('  createdAt   Desc ,  name  ', catalogue), expected);
  });

  it('joins repeated parameters as if comma-separated', () => {
    assert.deepEqual(parseSortParam(['size desc', 'name'], catalogue), [
      { field: 'size', direction: 'desc' },
      { field: 'name', direction: 'asc' },
    ]);
  });

  it('returns undefined when missing or blank', () => {
    assert.equal(parseSortParam(undefined, catalogue), undefined);
    assert.equal(parseSortParam('', catalogue), undefined);
    assert.equal(parseSortParam('  ', catalogue), undefined);
    assert.equal(parseSortParam([], catalogue), undefined);
  });

  it('rejects an unknown field with INVALID_SORT_IDENTIFIER, listing the sortable fields', () => {
    const error = sortError('nme desc');
    assert.equal(error.code, 'INVALID_SORT_IDENTIFIER');
    assert.equal(httpStatusOf(error), 400);
    assert.deepEqual(error.cause, {
      field: 'sort',
      reason: "unknown sort field 'nme'; expected one of: id, name, size, isAdmin, createdAt",
      value: 'nme desc',
    });
  });

  it('rejects list fields, bad directions, extra words and empty entries', () => {
    const reason = (raw: string) => (sortError(raw).cause as { reason: string }).reason;
    assert.match(reason('tags'), /field 'tags' is a list and cannot be sorted on/);
    assert.equal(reason('name up'), "expected 'asc' or 'desc' after 'name', found 'up'");
    assert.equal(reason('name asc desc'), "expected ',' or the end of the sort after 'asc', found 'desc'");
    assert.equal(reason('name,,size'), 'expected a field name in sort entry 2');
    assert.equal(reason('name,'), 'expected a field name in sort entry 2');
    assert.match(reason('constructor'), /unknown sort field 'constructor'/);
  });
});

describe('sortFieldProblem / sortableFields', () => {
  it('accepts scalar fields and explains the rest', () => {
    assert.deepEqual(sortableFields(catalogue), ['id', 'name', 'size', 'isAdmin', 'createdAt']);
    assert.equal(sortFieldProblem('size', catalogue), undefined);
    assert.match(sortFieldProblem('nope', catalogue) ?? '', /unknown sort field 'nope'/);
    assert.match(sortFieldProblem('tags', catalogue) ?? '', /is a list/);
  });
});

describe('sortItems', () => {
  const rows: Row[] = [
    { id: 'r3', name: 'b', size: 2, isAdmin: true, createdAt: '2026-03-01T00:00:00Z' },
    { id: 'r1', name: 'a', size: 2, isAdmin: false, createdAt: new Date('2026-01-01T00:00:00Z') },
    { id: 'r2', name: 'b', size: 1, isAdmin: false, createdAt: Date.UTC(2026, 1, 1) },
    { id: 'r4', name: 'a', size: 3, isAdmin: true, createdAt: '2026-01-01T00:00:00Z' },
  ];

  it('sorts by one key in either direction', () => {
    assert.deepEqual(order(rows, 'size'), ['r2', 'r1', 'r3', 'r4']);
    assert.deepEqual(order(rows, 'size desc'), ['r4', 'r1', 'r3', 'r2']);
  });

  it('sorts by several keys, each with its own direction', () => {
    assert.deepEqual(order(rows, 'name asc, size desc'), ['r4', 'r1', 'r3', 'r2']);
    assert.deepEqual(order(rows, 'name desc,size'), ['r2', 'r3', 'r1', 'r4']);
  });

  it('breaks ties by id ascending, whatever the direction', () => {
    assert.deepEqual(order(rows, 'name'), ['r1', 'r4', 'r2', 'r3']);
    assert.deepEqual(order(rows, 'name desc'), ['r2', 'r3', 'r1', 'r4']);
    assert.deepEqual(order(rows, 'isAdmin'), ['r1', 'r2', 'r3', 'r4']);
  });

  it('keeps input order for entities with equal keys and equal ids (stable)', () => {
    const dupes: Row[] = [
      { id: 'x', name: 'second' },
      { id: 'x', name: 'first' },
      { id: 'x', name: 'third' },
    ];
    const sorted = sortItems(dupes, [{ field: 'size', direction: 'asc' }], catalogue);
    assert.deepEqual(sorted.map((r) => r.name), ['second', 'first', 'third']);
  });

  it('sorts datetimes as instants whatever form they take', () => {
    assert.deepEqual(order(rows, 'createdAt desc, id desc'), ['r3', 'r2', 'r4', 'r1']);
  });

  it('puts missing values last in both directions', () => {
    const sparse: Row[] = [{ id: 'n1' }, { id: 's2', size: 2 }, { id: 'n0' }, { id: 's1', size: 1 }];
    assert.deepEqual(order(sparse, 'size'), ['s1', 's2', 'n0', 'n1']);
    assert.deepEqual(order(sparse, 'size desc'), ['s2', 's1', 'n0', 'n1']);
  });

  it('returns a copy and leaves the input alone', () => {
    const input = rows.slice();
    const sorted = sortItems(input, [{ field: 'size', direction: 'asc' }], catalogue);
    assert.notEqual(sorted, input);
    assert.deepEqual(input, rows);
    assert.deepEqual(sortItems(input, [], catalogue), rows);
  });

  it('falls back to the entity id when the catalogue has no id field', () => {
    const noId: FieldCatalogue<Row> = { name: catalogue.name! };
    const sorted = sortItems(rows, [{ field: 'name', direction: 'asc' }], noId);
    assert.deepEqual(sorted.map((r) => r.id), ['r1', 'r4', 'r2', 'r3']);
  });
});
