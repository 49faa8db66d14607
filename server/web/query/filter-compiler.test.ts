import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FieldCatalogue } from './field-catalogue.ts';
import { compileFilter } from './filter-compiler.ts';
import { FilterError } from './filter-error.ts';
import { parseFilter } from './filter-parser.ts';

interface Thing {
  readonly id: string;
  readonly name: string | null;
  readonly size?: number;
  readonly isAdmin?: boolean;
  readonly createdAt: string | Date | number | null;
  readonly roleAttributes?: readonly string[] | null;
  readonly authPolicy?: { readonly name: string };
}

const catalogue: FieldCatalogue<Thing> = {
  id: { type: 'string', get: (t) => t.id },
  name: { type: 'string', get: (t) => t.name },
  size: { type: 'number', get: (t) => t.size },
  isAdmin: { type: 'boolean', get: (t) => t.isAdmin },
  createdAt: { type: 'datetime', get: (t) => t.createdAt },
  roleAttributes: { type: 'string[]', get: (t) => t.roleAttributes },
  'authPolicy.name': { type: 'string', get: (t) => t.authPolicy?.name },
};

// The same instants written three ways, as stores may hand them over.
const things: readonly Thing[] = [
  { id: 'a', name: 'alpha', size: 1, isAdmin: true, createdAt: '2026-01-01T00:00:00Z', roleAttributes: ['web', 'db'], authPolicy: { name: 'Default' } },
  { id: 'b', name: 'Beta "quoted"', size: 2.5, isAdmin: false, createdAt: new Date('2026-02-01T00:00:00Z'), roleAttributes: ['web'], authPolicy: { name: 'strict' } },
  { id: 'c', name: 'gamma\\path', size: -3, isAdmin: false, createdAt: Date.UTC(2026, 2, 1), roleAttributes: [] },
  { id: 'd', name: null, createdAt: 'not a date', roleAttributes: null },
  { id: 'e', name: '', size: 10, isAdmin: true, createdAt: null, roleAttributes: ['Web', 'WEB'] },
];

function ids(filter: string): string[] {
  const predicate = compileFilter(parseFilter(filter).where, catalogue);
  return things.filter(predicate).map((t) => t.id);
}

function compileError(filter: string): FilterError {
  try {
    compileFilter(parseFilter(filter).where, catalogue);
  } catch (error) {
    assert.ok(error instanceof FilterError, `expected a FilterError for ${filter}`);
    return error;
  }
  assert.fail(`expected ${JSON.stringify(filter)} to be rejected`);
}

describe('compileFilter: the must-haves', () => {
  it('matches name = "x" exactly and case-sensitively', () => {
    assert.deepEqual(ids('name = "alpha"'), ['a']);
    assert.deepEqual(ids('name = "ALPHA"'), []);
  });

  it('matches name contains "x" as a case-sensitive substring', () => {
    assert.deepEqual(ids('name contains "a"'), ['a', 'b', 'c']);
    assert.deepEqual(ids('name contains "B"'), ['b']);
  });

  it('combines conditions with and', () => {
    assert.deepEqual(ids('name contains "a" and isAdmin = false'), ['b', 'c']);
    assert.deepEqual(ids('name contains "a" and isAdmin = false and size < 0'), ['c']);
  });

  it('accepts no filter at all', () => {
    assert.deepEqual(compileFilter(undefined, catalogue)(things[0]!), true);
  });
});

describe('compileFilter: boolean logic', () => {
  it('gives and precedence over or', () => {
    // a or (b and c): alpha, plus the non-admins with a negative size.
    assert.deepEqual(ids('name = "alpha" or isAdmin = false and size < 0'), ['a', 'c']);
    assert.deepEqual(ids('(name = "alpha" or isAdmin = false) and size < 0'), ['c']);
  });

  it('negates with not, including a missing value', () => {
    assert.deepEqual(ids('not name = "alpha"'), ['b', 'c', 'd', 'e']);
    assert.deepEqual(ids('not (isAdmin = true or size > 2)'), ['c', 'd']);
    assert.deepEqual(ids('not not name = "alpha"'), ['a']);
  });

  it('evaluates the constants', () => {
    assert.deepEqual(ids('true'), ['a', 'b', 'c', 'd', 'e']);
    assert.deepEqual(ids('false'), []);
    assert.deepEqual(ids('false or name = "alpha"'), ['a']);
  });
});

describe('compileFilter: operators', () => {
  it('compares strings with every comparison operator', () => {
    assert.deepEqual(ids('name != "alpha"'), ['b', 'c', 'e']);
    // Ordering is by UTF-16 code unit, so upper case sorts before lower case.
    assert.deepEqual(ids('name > "alpha"'), ['c']);
    assert.deepEqual(ids('name >= "alpha"'), ['a', 'c']);
    assert.deepEqual(ids('name < "alpha"'), ['b', 'e']);
    assert.deepEqual(ids('name <= "alpha"'), ['a', 'b', 'e']);
  });

  it('compares numbers, integer or decimal, negative or not', () => {
    assert.deepEqual(ids('size = 2.5'), ['b']);
    assert.deepEqual(ids('size != 1'), ['b', 'c', 'e']);
    assert.deepEqual(ids('size > 1'), ['b', 'e']);
    assert.deepEqual(ids('size >= 1'), ['a', 'b', 'e']);
    assert.deepEqual(ids('size < -2'), ['c']);
    assert.deepEqual(ids('size <= -3'), ['c']);
  });

  it('compares booleans', () => {
    assert.deepEqual(ids('isAdmin = true'), ['a', 'e']);
    assert.deepEqual(ids('isAdmin != true'), ['b', 'c']);
    assert.deepEqual(ids('isAdmin in [false]'), ['b', 'c']);
  });

  it('applies the text operators and their negations', () => {
    assert.deepEqual(ids('name icontains "BETA"'), ['b']);
    assert.deepEqual(ids('name not icontains "A"'), ['e']);
    assert.deepEqual(ids('name not contains "a"'), ['e']);
    assert.deepEqual(ids('name startswith "gam"'), ['c']);
    assert.deepEqual(ids('name not startswith "gam"'), ['a', 'b', 'e']);
    assert.deepEqual(ids('name endswith "ha"'), ['a']);
    assert.deepEqual(ids('name not endswith "ha"'), ['b', 'c', 'e']);
    assert.deepEqual(ids('name contains ""'), ['a', 'b', 'c', 'e']);
  });

  it('matches escaped quotes and backslashes literally', () => {
    assert.deepEqual(ids(String.raw`name = "Beta \"quoted\""`), ['b']);
    assert.deepEqual(ids(String.raw`name contains "\""`), ['b']);
    assert.deepEqual(ids(String.raw`name = "gamma\\path"`), ['c']);
  });

  it('tests membership with in and not in', () => {
    assert.deepEqual(ids('name in ["alpha", "gamma\\\\path", "zeta"]'), ['a', 'c']);
    assert.deepEqual(ids('name not in ["alpha"]'), ['b', 'c', 'e']);
    assert.deepEqual(ids('size in [1, 10]'), ['a', 'e']);
    assert.deepEqual(ids('size not in [1, 10]'), ['b', 'c']);
  });

  it('treats between as half-open (low <= v < high), as OpenZiti does', () => {
    assert.deepEqual(ids('size between 1 and 10'), ['a', 'b']);
    assert.deepEqual(ids('size not between 1 and 10'), ['c', 'e']);
    assert.deepEqual(ids(String.raw`name between "alpha" and "gamma\\path"`), ['a']);
  });

  it('reads dotted field names through the catalogue', () => {
    assert.deepEqual(ids('authPolicy.name = "Default"'), ['a']);
    assert.deepEqual(ids('authPolicy.name = null'), ['c', 'd', 'e']);
  });
});

describe('compileFilter: null and missing values', () => {
  it('tests for a missing value with = null and != null', () => {
    assert.deepEqual(ids('name = null'), ['d']);
    assert.deepEqual(ids('name != null'), ['a', 'b', 'c', 'e']);
    assert.deepEqual(ids('size = null'), ['d']);
    assert.deepEqual(ids('isAdmin = null'), ['d']);
    assert.deepEqual(ids('roleAttributes = null'), ['d']);
    assert.deepEqual(ids('roleAttributes != null'), ['a', 'b', 'c', 'e']);
  });

  it('makes every comparison with a missing value false, negated ones included', () => {
    for (const filter of ['name != "x"', 'name not contains "x"', 'name not in ["x"]', 'size != 0', 'size not between 100 and 200', 'isAdmin != true']) {
      assert.ok(!ids(filter).includes('d'), filter);
    }
  });

  it('counts an unparsable or null datetime as missing', () => {
    assert.deepEqual(ids('createdAt = null'), ['d', 'e']);
  });
});

describe('compileFilter: datetimes', () => {
  it('compares instants whether the entity holds an ISO string, a Date or epoch ms', () => {
    assert.deepEqual(ids('createdAt = datetime(2026-01-01T00:00:00Z)'), ['a']);
    assert.deepEqual(ids('createdAt = datetime(2026-02-01T00:00:00Z)'), ['b']);
    assert.deepEqual(ids('createdAt = datetime(2026-03-01T00:00:00Z)'), ['c']);
    assert.deepEqual(ids('createdAt > datetime(2026-01-01T00:00:00Z)'), ['b', 'c']);
    assert.deepEqual(ids('createdAt <= datetime(2026-02-01T00:00:00Z)'), ['a', 'b']);
  });

  it('compares the instant, not the text, across time zones', () => {
    assert.deepEqual(ids('createdAt = datetime(2026-01-01T01:00:00+01:00)'), ['a']);
    assert.deepEqual(ids('createdAt < datetime(2026-01-31T23:00:00-01:00)'), ['a']);
  });

  it('supports in and between on datetimes', () => {
    assert.deepEqual(ids('createdAt in [datetime(2026-01-01T00:00:00Z), datetime(2026-03-01T00:00:00Z)]'), ['a', 'c']);
    assert.deepEqual(ids('createdAt between datetime(2026-01-15T00:00:00Z) and datetime(2026-03-01T00:00:00Z)'), ['b']);
  });
});

describe('compileFilter: list fields', () => {
  it('matches anyOf when some element matches', () => {
    assert.deepEqual(ids('anyOf(roleAttributes) = "web"'), ['a', 'b']);
    assert.deepEqual(ids('anyOf(roleAttributes) icontains "WE"'), ['a', 'b', 'e']);
    assert.deepEqual(ids('anyOf(roleAttributes) in ["db", "nope"]'), ['a']);
    assert.deepEqual(ids('not anyOf(roleAttributes) = "web"'), ['c', 'd', 'e']);
  });

  it('matches allOf only when there are elements and all of them match', () => {
    assert.deepEqual(ids('allOf(roleAttributes) = "web"'), ['b']);
    assert.deepEqual(ids('allOf(roleAttributes) icontains "web"'), ['b', 'e']);
    assert.deepEqual(ids('allOf(roleAttributes) != "x"'), ['a', 'b', 'e']);
  });

  it('matches noneOf when no element matches, an empty list included', () => {
    assert.deepEqual(ids('noneOf(roleAttributes) = "web"'), ['c', 'd', 'e']);
  });

  it('counts elements, a missing list counting as zero', () => {
    assert.deepEqual(ids('count(roleAttributes) > 1'), ['a', 'e']);
    assert.deepEqual(ids('count(roleAttributes) = 0'), ['c', 'd']);
    assert.deepEqual(ids('count(roleAttributes) between 1 and 2'), ['b']);
  });

  it('treats a missing value, an empty string or an empty list as empty', () => {
    assert.deepEqual(ids('isEmpty(roleAttributes)'), ['c', 'd']);
    assert.deepEqual(ids('not isEmpty(roleAttributes)'), ['a', 'b', 'e']);
    assert.deepEqual(ids('isEmpty(name)'), ['d', 'e']);
    assert.deepEqual(ids('isEmpty(size)'), ['d']);
  });
});

describe('compileFilter: errors', () => {
  it('names an unknown field and lists the allowed ones', () => {
    const error = compileError('nme = "x"');
    assert.equal(error.message, "unknown field 'nme' at column 1; expected one of: id, name, size, isAdmin, createdAt, roleAttributes, authPolicy.name");
    assert.equal(error.column, 1);
    assert.match(compileError('name = "x" or anyOf(tags) = "x"').message, /unknown field 'tags' at column 21/);
    assert.match(compileError('isEmpty(toString)').message, /unknown field 'toString' at column 9/);
  });

  it('rejects operators that do not fit the field type', () => {
    const cases: [string, RegExp][] = [
      ['isAdmin contains "x"', /expected a string field before 'contains' at column 9, but field 'isAdmin' is a boolean/],
      ['size not startswith "1"', /expected a string field before 'not startswith' at column 6, but field 'size' is a number/],
      ['isAdmin > true', /expected a string, number or datetime field before '>' at column 9, but field 'isAdmin' is a boolean/],
      ['isAdmin between false and true', /before 'between' at column 9/],
      ['count(roleAttributes) contains "1"', /but count\(roleAttributes\) is a number/],
    ];
    for (const [filter, message] of cases) assert.match(compileError(filter).message, message, filter);
  });

  it('rejects values of the wrong type with the value column', () => {
    const cases: [string, RegExp, number][] = [
      ['name > true', /expected a string value at column 8 to compare with field 'name', found a boolean/, 8],
      ['size = "1"', /expected a number value at column 8 to compare with field 'size', found a string/, 8],
      ['isAdmin = 1', /expected a boolean value at column 11/, 11],
      ['createdAt > "2026-01-01T00:00:00Z"', /expected a datetime value at column 13 .* found a string; write instants as datetime\(/, 13],
      ['name in ["a", 2]', /expected a string value at column 15/, 15],
      ['size between 1 and "2"', /expected a number value at column 20/, 20],
      ['anyOf(roleAttributes) = 1', /expected a string value at column 25 to compare with anyOf\(roleAttributes\)/, 25],
      ['count(roleAttributes) > "1"', /expected a number value .* count\(roleAttributes\)/, 25],
    ];
    for (const [filter, message, column] of cases) {
      const error = compileError(filter);
      assert.match(error.message, message, filter);
      assert.equal(error.column, column, filter);
    }
  });

  it('allows null only with = and != on a plain field', () => {
    assert.match(compileError('name > null').message, /expected '=' or '!=' before null at column 6, found '>'/);
    assert.match(compileError('name contains null').message, /before null/);
    assert.match(compileError('name in ["a", null]').message, /not null; use '= null'/);
    assert.match(compileError('anyOf(roleAttributes) = null').message, /use isEmpty\(roleAttributes\)/);
  });

  it('requires a set function around a list field and a list field inside one', () => {
    assert.match(
      compileError('roleAttributes = "web"').message,
      /field 'roleAttributes' is a list at column 1; expected it inside anyOf\(roleAttributes\)/,
    );
    assert.match(compileError('anyOf(name) = "x"').message, /expected a list field in anyOf\(\) at column 7, but 'name' is a string/);
    assert.match(compileError('count(size) > 1').message, /expected a list field in count\(\)/);
  });
});
