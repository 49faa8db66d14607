import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FilterError } from './filter-error.ts';
import { parseFilter } from './filter-parser.ts';
import type { FilterExpr } from './filter-parser.ts';

/** A compact rendering of the tree, so precedence is easy to read in assertions. */
function show(expr: FilterExpr | undefined): string {
  if (!expr) return '';
  switch (expr.type) {
    case 'and':
    case 'or':
      return `(${expr.operands.map(show).join(` ${expr.type} `)})`;
    case 'not':
      return `not ${show(expr.operand)}`;
    case 'const':
      return String(expr.value);
    case 'isEmpty':
      return `isEmpty(${expr.field})`;
    default: {
      const lhs = expr.lhs.kind === 'field' ? expr.lhs.field : `${expr.lhs.fn}(${expr.lhs.field})`;
      const neg = expr.negated ? 'not ' : '';
      if (expr.type === 'compare') return `${lhs} ${neg}${expr.op} ${lit(expr.value)}`;
      if (expr.type === 'in') return `${lhs} ${neg}in [${expr.values.map(lit).join(',')}]`;
      return `${lhs} ${neg}between ${lit(expr.low)} and ${lit(expr.high)}`;
    }
  }
}

function lit(l: { kind: string; value?: unknown }): string {
  if (l.kind === 'null') return 'null';
  if (l.kind === 'datetime') return `dt:${new Date(l.value as number).toISOString()}`;
  return JSON.stringify(l.value);
}

const where = (text: string) => show(parseFilter(text).where);

function syntaxError(text: string): FilterError {
  try {
    parseFilter(text);
  } catch (error) {
    assert.ok(error instanceof FilterError, `expected a FilterError for ${text}`);
    return error;
  }
  assert.fail(`expected ${JSON.stringify(text)} to be rejected`);
}

describe('parseFilter: conditions', () => {
  it('parses the must-haves: equality, contains and and', () => {
    assert.equal(where('name = "x"'), 'name = "x"');
    assert.equal(where('name contains "x"'), 'name contains "x"');
    assert.equal(where('name = "x" and isAdmin = true'), '(name = "x" and isAdmin = true)');
  });

  it('parses every comparison operator', () => {
    assert.equal(where('size = 1'), 'size = 1');
    assert.equal(where('size != 1'), 'size != 1');
    assert.equal(where('size > 1'), 'size > 1');
    assert.equal(where('size >= 1'), 'size >= 1');
    assert.equal(where('size < 1'), 'size < 1');
    assert.equal(where('size <= 1'), 'size <= 1');
    assert.equal(where('size=1'), 'size = 1');
  });

  it('parses every text operator and its negation', () => {
    for (const op of ['contains', 'icontains', 'startswith', 'endswith']) {
      assert.equal(where(`name ${op} "x"`), `name ${op} "x"`);
      assert.equal(where(`name not ${op} "x"`), `name not ${op} "x"`);
    }
  });

  it('parses in, not in, between and not between', () => {
    assert.equal(where('name in ["a", "b"]'), 'name in ["a","b"]');
    assert.equal(where('size not in [1,2,3]'), 'size not in [1,2,3]');
    assert.equal(where('size between 1 and 5'), 'size between 1 and 5');
    assert.equal(where('size not between -1 and 0.5'), 'size not between -1 and 0.5');
    assert.equal(
      where('createdAt between datetime(2026-01-01T00:00:00Z) and datetime(2026-02-01T00:00:00Z)'),
      'createdAt between dt:2026-01-01T00:00:00.000Z and dt:2026-02-01T00:00:00.000Z',
    );
  });

  it('keeps between ... and apart from the boolean and', () => {
    assert.equal(where('size between 1 and 5 and name = "x"'), '(size between 1 and 5 and name = "x")');
  });

  it('parses value literals: strings with escapes, numbers, booleans, null and datetimes', () => {
    assert.equal(where(String.raw`name = "a \"b\" \\ c"`), String.raw`name = "a \"b\" \\ c"`);
    assert.equal(where('size = -12.75'), 'size = -12.75');
    assert.equal(where('isAdmin = FALSE'), 'isAdmin = false');
    assert.equal(where('name = NULL'), 'name = null');
    assert.equal(where('name != null'), 'name != null');
    assert.equal(where('createdAt > datetime(2026-01-01T00:00:00Z)'), 'createdAt > dt:2026-01-01T00:00:00.000Z');
  });

  it('parses isEmpty, not isEmpty and the set functions', () => {
    assert.equal(where('isEmpty(roleAttributes)'), 'isEmpty(roleAttributes)');
    assert.equal(where('not isEmpty(roleAttributes)'), 'not isEmpty(roleAttributes)');
    assert.equal(where('anyOf(roleAttributes) = "x"'), 'anyOf(roleAttributes) = "x"');
    assert.equal(where('allOf(roleAttributes) = "x"'), 'allOf(roleAttributes) = "x"');
    assert.equal(where('noneOf(roleAttributes) contains "x"'), 'noneOf(roleAttributes) contains "x"');
    assert.equal(where('count(roleAttributes) > 1'), 'count(roleAttributes) > 1');
    assert.equal(where('anyOf(roleAttributes) in ["a", "b"]'), 'anyOf(roleAttributes) in ["a","b"]');
  });

  it('records columns of fields, operators and values', () => {
    const { where: expr } = parseFilter('name   =  "x"');
    assert.equal(expr?.type, 'compare');
    if (expr?.type !== 'compare') return;
    assert.equal(expr.lhs.column, 1);
    assert.equal(expr.column, 8);
    assert.equal(expr.value.column, 11);
  });

  it('accepts dotted field names', () => {
    assert.equal(where('authPolicy.name = "Default"'), 'authPolicy.name = "Default"');
  });

  it('reads keywords in any case but keeps field names as written', () => {
    assert.equal(
      where('Name NOT CONTAINS "x" AND Size Between 1 AnD 2 OR NOT IsEmpty(tags) or ANYOF(roles) In ["a"]'),
      '((Name not contains "x" and Size between 1 and 2) or not isEmpty(tags) or anyOf(roles) in ["a"])',
    );
  });

  it('accepts the constants true and false as whole conditions', () => {
    assert.equal(where('true'), 'true');
    assert.equal(where('false or name = "x"'), '(false or name = "x")');
  });
});

describe('parseFilter: precedence', () => {
  it('binds and tighter than or', () => {
    assert.equal(where('a = 1 or b = 2 and c = 3'), '(a = 1 or (b = 2 and c = 3))');
    assert.equal(where('a = 1 and b = 2 or c = 3'), '((a = 1 and b = 2) or c = 3)');
  });

  it('binds not tighter than and', () => {
    assert.equal(where('not a = 1 and b = 2'), '(not a = 1 and b = 2)');
    assert.equal(where('not not a = 1'), 'not not a = 1');
  });

  it('lets parentheses override precedence', () => {
    assert.equal(where('(a = 1 or b = 2) and c = 3'), '((a = 1 or b = 2) and c = 3)');
    assert.equal(where('not (a = 1 or b = 2)'), 'not (a = 1 or b = 2)');
    assert.equal(where('((a = 1))'), 'a = 1');
  });

  it('flattens chains of the same operator', () => {
    assert.equal(where('a = 1 or b = 2 or c = 3'), '(a = 1 or b = 2 or c = 3)');
  });
});

describe('parseFilter: clauses', () => {
  it('reads sort by, skip and limit after the condition', () => {
    const q = parseFilter('name contains "a" sort by name DESC, createdAt skip 20 limit 5');
    assert.equal(show(q.where), 'name contains "a"');
    assert.deepEqual(q.sort, [
      { field: 'name', direction: 'desc', column: 27 },
      { field: 'createdAt', direction: 'asc', column: 38 },
    ]);
    assert.equal(q.skip, 20);
    assert.equal(q.limit, 5);
  });

  it('accepts clauses without a condition and limit none', () => {
    assert.deepEqual(parseFilter('limit none'), { limit: 'none' });
    assert.deepEqual(parseFilter('SKIP 3 LIMIT 2'), { skip: 3, limit: 2 });
    assert.deepEqual(parseFilter('sort by name asc'), { sort: [{ field: 'name', direction: 'asc', column: 9 }] });
  });

  it('still treats sort, skip and limit as fields when an operator follows', () => {
    assert.equal(where('limit = 3'), 'limit = 3');
    assert.equal(where('sort contains "a"'), 'sort contains "a"');
  });

  it('parses an empty or blank filter to nothing', () => {
    assert.deepEqual(parseFilter(''), {});
    assert.deepEqual(parseFilter('   '), {});
  });
});

describe('parseFilter: errors', () => {
  it('reports a missing value after an operator with its column', () => {
    const error = syntaxError('name = ');
    assert.equal(error.message, "expected a value after '=' at column 8");
    assert.equal(error.column, 8);
    assert.equal(syntaxError('name = and').message, "expected a value after '=' at column 8");
  });

  it('reports each kind of syntax error with the column and what was expected', () => {
    const cases: [string, string][] = [
      ['name', "expected an operator after 'name' at column 5"],
      ['name "x"', "expected an operator after 'name' at column 6"],
      ['name = "x" and', "expected a condition after 'and' at column 15"],
      ['and name = "x"', 'expected a condition at column 1'],
      ['name = "x" name = "y"', "expected 'and', 'or', 'sort by', 'skip', 'limit' or the end of the filter after '\"x\"' at column 12"],
      ['(name = "x"', "expected 'and', 'or' or ')' after '\"x\"' at column 12"],
      ['name = "x")', "expected 'and', 'or', 'sort by', 'skip', 'limit' or the end of the filter after '\"x\"' at column 11"],
      ['()', "expected a condition after '(' at column 2"],
      ['name not = "x"', "expected 'contains', 'icontains', 'startswith', 'endswith', 'in' or 'between' after 'not' at column 10"],
      ['name contains', "expected a value after 'contains' at column 14"],
      ['name in "a"', "expected '[' after 'in' at column 9"],
      ['name in []', "expected a value after '[' at column 10"],
      ['name in ["a" "b"]', "expected ',' or ']' after '\"a\"' at column 14"],
      ['name in ["a",]', "expected a value after ',' at column 14"],
      ['size between 1', "expected 'and' after '1' at column 15"],
      ['size between 1 and', "expected a value after 'and' at column 19"],
      ['isEmpty()', "expected a field name after '(' at column 9"],
      ['isEmpty(roles', "expected ')' after 'roles' at column 14"],
      ['anyOf(roles = "x"', "expected ')' after 'roles' at column 13"],
      ['name = other', "expected a value after '=' at column 8"],
      ['sort name', "expected 'by' after 'sort' at column 6"],
      ['name = "x" sort by', "expected a field name after 'by' at column 19"],
      ['name = "x" sort by name up', "expected ',', 'skip', 'limit' or the end of the filter after 'name' at column 25"],
      ['name = "x" skip x', "expected a whole number after 'skip' at column 17"],
      ['name = "x" skip 1.5', "expected a whole number after 'skip' at column 17"],
      ['name = "x" limit all', "expected a whole number or 'none' after 'limit' at column 18"],
      ['limit 5 skip 1', "expected the end of the filter after '5' at column 9"],
      ['skip 1 sort by name', "expected 'limit' or the end of the filter after '1' at column 8"],
    ];
    for (const [text, message] of cases) {
      assert.equal(syntaxError(text).message, message, text);
    }
  });

  it('passes lexer errors through with their column', () => {
    const error = syntaxError('name = "x');
    assert.equal(error.column, 10);
    assert.match(error.message, /expected a closing '"' at column 10/);
  });

  it('refuses absurdly deep nesting instead of overflowing the stack', () => {
    const error = syntaxError(`${'('.repeat(5000)}a = 1${')'.repeat(5000)}`);
    assert.match(error.message, /expected at most 100 levels of nesting at column \d+/);
    assert.match(syntaxError(`${'not '.repeat(500)}a = 1`).message, /levels of nesting/);
  });
});
