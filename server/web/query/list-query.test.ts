import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EdgeError } from '../../edge/edge-error.ts';
import { httpStatusOf } from '../api-error.ts';
import { prepareListQuery, runListQuery } from './list-query.ts';
import type { FieldCatalogue, ListQueryParams } from './list-query.ts';

interface Identity {
  readonly id: string;
  readonly name: string;
  readonly isAdmin: boolean;
  readonly createdAt: string;
  readonly roleAttributes: readonly string[];
}

const catalogue: FieldCatalogue<Identity> = {
  id: { type: 'string', get: (i) => i.id },
  name: { type: 'string', get: (i) => i.name },
  isAdmin: { type: 'boolean', get: (i) => i.isAdmin },
  createdAt: { type: 'datetime', get: (i) => i.createdAt },
  roleAttributes: { type: 'string[]', get: (i) => i.roleAttributes },
};

// 25 identities: id-00..id-24, created one day apart, every fifth an admin, attributes by parity.
const identities: Identity[] = Array.from({ length: 25 }, (_, n) => ({
  id: `id-${String(n).padStart(2, '0')}`,
  name: `user ${n}`,
  isAdmin: n % 5 === 0,
  createdAt: new Date(Date.UTC(2026, 0, 1 + n)).toISOString(),
  roleAttributes: n % 2 === 0 ? ['even', 'all'] : ['odd', 'all'],
}));

const ids = (query: ListQueryParams) => runListQuery(identities, query, catalogue).data.map((i) => i.id);

function listError(query: ListQueryParams): EdgeError {
  try {
    runListQuery(identities, query, catalogue);
  } catch (error) {
    assert.ok(error instanceof EdgeError, `expected an EdgeError, got ${String(error)}`);
    return error;
  }
  assert.fail(`expected ${JSON.stringify(query)} to be rejected`);
}

describe('runListQuery', () => {
  it('returns the first page in store order with the list envelope meta', () => {
    const result = runListQuery(identities, {}, catalogue);
    assert.equal(result.data.length, 10);
    assert.equal(result.data[0]?.id, 'id-00');
    assert.deepEqual(result.meta, {
      pagination: { limit: 10, offset: 0, totalCount: 25 },
      filterableFields: ['id', 'name', 'isAdmin', 'createdAt', 'roleAttributes'],
    });
  });

  it('filters with name = "x", name contains "x" and and', () => {
    assert.deepEqual(ids({ filter: 'name = "user 7"' }), ['id-07']);
    assert.deepEqual(ids({ filter: 'name contains "2"', limit: '50' }), ['id-02', 'id-12', 'id-20', 'id-21', 'id-22', 'id-23', 'id-24']);
    assert.deepEqual(ids({ filter: 'name contains "2" and isAdmin = true' }), ['id-20']);
  });

  it('counts every match in totalCount, before paging', () => {
    const result = runListQuery(identities, { filter: 'anyOf(roleAttributes) = "even"', limit: '5', offset: '10' }, catalogue);
    assert.deepEqual(result.data.map((i) => i.id), ['id-20', 'id-22', 'id-24']);
    assert.deepEqual(result.meta.pagination, { limit: 5, offset: 10, totalCount: 13 });
    const page = runListQuery(identities, { filter: 'anyOf(roleAttributes) = "even"', limit: '5', offset: '5' }, catalogue);
    assert.deepEqual(page.data.map((i) => i.id), ['id-10', 'id-12', 'id-14', 'id-16', 'id-18']);
    assert.equal(page.meta.pagination.totalCount, 13);
  });

  it('sorts before paging, with the sort parameter', () => {
    assert.deepEqual(ids({ sort: 'createdAt desc', limit: '3' }), ['id-24', 'id-23', 'id-22']);
    assert.deepEqual(ids({ sort: 'isAdmin desc,name', limit: '6' }), ['id-00', 'id-10', 'id-15', 'id-20', 'id-05', 'id-01']);
  });

  it('filters on datetimes', () => {
    assert.deepEqual(ids({ filter: 'createdAt >= datetime(2026-01-23T00:00:00Z)' }), ['id-22', 'id-23', 'id-24']);
  });

  it('applies sort by, skip and limit clauses from the filter when the parameters are absent', () => {
    const result = runListQuery(identities, { filter: 'isAdmin = false sort by createdAt desc skip 2 limit 3' }, catalogue);
    assert.deepEqual(result.data.map((i) => i.id), ['id-22', 'id-21', 'id-19']);
    assert.deepEqual(result.meta.pagination, { limit: 3, offset: 2, totalCount: 20 });
  });

  it('lets the parameters win over the filter clauses', () => {
    const result = runListQuery(
      identities,
      { filter: 'isAdmin = false sort by createdAt desc skip 2 limit 3', sort: 'name', limit: '2', offset: '1' },
      catalogue,
    );
    // Names sort as text: "user 1", "user 11", "user 12", ...
    assert.deepEqual(result.data.map((i) => i.id), ['id-11', 'id-12']);
    assert.deepEqual(result.meta.pagination, { limit: 2, offset: 1, totalCount: 20 });
  });

  it('treats empty parameters as absent, so the filter clauses still apply', () => {
    const result = runListQuery(identities, { filter: 'sort by name desc limit 2', sort: '', limit: '', offset: '' }, catalogue);
    assert.deepEqual(result.data.map((i) => i.id), ['id-09', 'id-08']);
  });

  it('applies the pagination bounds to the filter clauses too', () => {
    const none = runListQuery(identities, { filter: 'limit none' }, catalogue);
    assert.equal(none.meta.pagination.limit, 500);
    assert.equal(none.data.length, 25);
    assert.equal(runListQuery(identities, { filter: 'limit 0' }, catalogue).meta.pagination.limit, 10);
    assert.equal(runListQuery(identities, { filter: 'limit 9000' }, catalogue).meta.pagination.limit, 500);
    assert.equal(runListQuery(identities, { filter: 'skip -4' }, catalogue).meta.pagination.offset, 0);
    assert.equal(runListQuery(identities, { filter: 'skip 200000' }, catalogue).meta.pagination.offset, 100_000);
  });

  it('caps limit=-1 at 500 and applies the other limit rules', () => {
    assert.equal(runListQuery(identities, { limit: '-1' }, catalogue).data.length, 25);
    assert.equal(runListQuery(identities, { limit: '-1' }, catalogue).meta.pagination.limit, 500);
    assert.equal(runListQuery(identities, { limit: '0' }, catalogue).meta.pagination.limit, 10);
    assert.equal(runListQuery(identities, { limit: '1000' }, catalogue).meta.pagination.limit, 500);
  });

  it('ignores a blank filter', () => {
    assert.equal(runListQuery(identities, { filter: '   ' }, catalogue).meta.pagination.totalCount, 25);
  });

  it('takes the first of repeated parameters, as a Koa query object can carry them', () => {
    const query: Record<string, string | string[] | undefined> = { filter: ['name = "user 1"', 'name = "user 2"'], limit: ['1', '5'], extra: 'ignored' };
    assert.deepEqual(ids(query), ['id-01']);
  });

  it('returns an empty page past the end', () => {
    const result = runListQuery(identities, { offset: '100' }, catalogue);
    assert.deepEqual(result.data, []);
    assert.equal(result.meta.pagination.totalCount, 25);
  });

  it('does not modify the input list', () => {
    const before = identities.map((i) => i.id);
    runListQuery(identities, { sort: 'name desc' }, catalogue);
    assert.deepEqual(identities.map((i) => i.id), before);
  });
});

describe('runListQuery errors', () => {
  it('reports a syntax error as INVALID_FILTER with the column', () => {
    const error = listError({ filter: 'name = ' });
    assert.equal(error.code, 'INVALID_FILTER');
    assert.equal(httpStatusOf(error), 400);
    assert.deepEqual(error.cause, { field: 'filter', reason: "expected a value after '=' at column 8", value: 'name = ' });
  });

  it('reports an unknown field as INVALID_FILTER naming it and the allowed fields', () => {
    const error = listError({ filter: 'nmae = "x"' });
    assert.equal(error.code, 'INVALID_FILTER');
    assert.deepEqual(error.cause, {
      field: 'filter',
      reason: "unknown field 'nmae' at column 1; expected one of: id, name, isAdmin, createdAt, roleAttributes",
      value: 'nmae = "x"',
    });
  });

  it('reports a type mismatch as INVALID_FILTER', () => {
    assert.equal(listError({ filter: 'isAdmin contains "x"' }).code, 'INVALID_FILTER');
    assert.equal(listError({ filter: 'name > true' }).code, 'INVALID_FILTER');
  });

  it('reports a bad sort by clause inside the filter as INVALID_FILTER', () => {
    const error = listError({ filter: 'isAdmin = true sort by nope' });
    assert.equal(error.code, 'INVALID_FILTER');
    assert.match((error.cause as { reason: string }).reason, /unknown sort field 'nope'; expected one of: .* \(at column 24\)/);
    assert.match((listError({ filter: 'sort by roleAttributes' }).cause as { reason: string }).reason, /is a list/);
  });

  it('reports a bad sort parameter as INVALID_SORT_IDENTIFIER', () => {
    const error = listError({ sort: 'nope desc' });
    assert.equal(error.code, 'INVALID_SORT_IDENTIFIER');
    assert.equal((error.cause as { field: string }).field, 'sort');
  });

  it('reports bad limit and offset as INVALID_PAGINATION', () => {
    assert.deepEqual(listError({ limit: 'abc' }).cause, { field: 'limit', reason: "expected an integer for limit, found 'abc'", value: 'abc' });
    assert.deepEqual(listError({ offset: '1.5' }).cause, { field: 'offset', reason: "expected an integer for offset, found '1.5'", value: '1.5' });
  });
});

describe('runListQuery on a large list', () => {
  const size = 10_000;
  const many: Identity[] = Array.from({ length: size }, (_, n) => ({
    id: `id-${String(n).padStart(5, '0')}`,
    name: `identity-${n}`,
    isAdmin: n % 100 === 0,
    createdAt: new Date(Date.UTC(2026, 0, 1) + n * 60_000).toISOString(),
    roleAttributes: [`group-${n % 7}`],
  }));

  it('compiles the filter once and reads each field once per entity', () => {
    let reads = 0;
    const counting: FieldCatalogue<Identity> = { ...catalogue, name: { type: 'string', get: (i) => (reads++, i.name) } };
    const result = runListQuery(many, { filter: 'name contains "99"' }, counting);
    assert.equal(reads, size);
    assert.equal(result.meta.pagination.totalCount, many.filter((i) => i.name.includes('99')).length);
  });

  it('filters, sorts and pages 10k items in a few milliseconds', () => {
    const query = { filter: 'name contains "7" and isAdmin = false', sort: 'createdAt desc', limit: '50', offset: '100' };
    runListQuery(many, query, catalogue); // warm up the JIT
    const runs = 5;
    const started = performance.now();
    let result = runListQuery(many, query, catalogue);
    for (let i = 1; i < runs; i++) result = runListQuery(many, query, catalogue);
    const perRun = (performance.now() - started) / runs;

    const expected = many.filter((i) => i.name.includes('7') && !i.isAdmin).reverse();
    assert.equal(result.meta.pagination.totalCount, expected.length);
    assert.deepEqual(result.data.map((i) => i.id), expected.slice(100, 150).map((i) => i.id));
    // Generous bound so a loaded CI machine does not flake; locally this is a few ms.
    assert.ok(perRun < 100, `took ${perRun.toFixed(1)} ms per run`);
  });

  it('reuses one prepared query across lists', () => {
    const prepared = prepareListQuery<Identity>({ filter: 'anyOf(roleAttributes) = "group-3"', limit: '-1' }, catalogue);
    const first = prepared.run(many);
    const second = prepared.run(many.slice(0, 70));
    assert.equal(first.meta.pagination.totalCount, Math.ceil((size - 3) / 7));
    assert.equal(second.meta.pagination.totalCount, 10);
    assert.equal(first.data.length, 500);
  });
});
