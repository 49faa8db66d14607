import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FilterError } from './filter-error.ts';
import { parseRfc3339, tokenize } from './filter-lexer.ts';

const kinds = (text: string) => tokenize(text).map((t) => t.kind);

function lexError(text: string): FilterError {
  try {
    tokenize(text);
  } catch (error) {
    assert.ok(error instanceof FilterError, `expected a FilterError for ${text}`);
    return error;
  }
  assert.fail(`expected ${JSON.stringify(text)} to be rejected`);
}

describe('tokenize', () => {
  it('splits words, strings, numbers, operators and punctuation with 1-based columns', () => {
    const tokens = tokenize('authPolicy.name != "x" and (size >= -1.5)');
    assert.deepEqual(
      tokens.map((t) => [t.kind, t.text, t.column]),
      [
        ['word', 'authPolicy.name', 1],
        ['op', '!=', 17],
        ['string', '"x"', 20],
        ['word', 'and', 24],
        ['(', '(', 28],
        ['word', 'size', 29],
        ['op', '>=', 34],
        ['number', '-1.5', 37],
        [')', ')', 41],
        ['eof', '', 42],
      ],
    );
  });

  it('reads every comparison operator, with or without spaces', () => {
    const ops = tokenize('a=1 a!=1 a<1 a<=1 a>1 a>=1').flatMap((t) => (t.kind === 'op' ? [t.op] : []));
    assert.deepEqual(ops, ['=', '!=', '<', '<=', '>', '>=']);
  });

  it('keeps the text of words and lower-cases them for keyword matching', () => {
    const [token] = tokenize('NOT');
    assert.equal(token?.kind, 'word');
    assert.equal(token?.kind === 'word' && token.lower, 'not');
    assert.equal(token?.text, 'NOT');
  });

  it('allows letters, digits, underscores and dotted segments in identifiers', () => {
    const [token] = tokenize('_a1.b_2.C3');
    assert.equal(token?.text, '_a1.b_2.C3');
  });

  it('reads integers, decimals, negatives and exponents', () => {
    const values = tokenize('0 42 -7 3.25 -0.5 1e3').flatMap((t) => (t.kind === 'number' ? [[t.value, t.integer]] : []));
    assert.deepEqual(values, [
      [0, true],
      [42, true],
      [-7, true],
      [3.25, false],
      [-0.5, false],
      [1000, false],
    ]);
  });

  it('unescapes \\" and \\\\ (and the ZitiQL control escapes) inside strings', () => {
    const [token] = tokenize(String.raw`"say \"hi\" to C:\\dir\n"`);
    assert.equal(token?.kind === 'string' && token.value, 'say "hi" to C:\\dir\n');
  });

  it('keeps single quotes and keywords inside strings as text', () => {
    const [token] = tokenize(`"it's and or not"`);
    assert.equal(token?.kind === 'string' && token.value, "it's and or not");
  });

  it('reads datetime(...) as one token holding the instant', () => {
    const [token] = tokenize('datetime(2026-01-01T00:00:00Z)');
    assert.equal(token?.kind, 'datetime');
    assert.equal(token?.kind === 'datetime' && token.value, Date.UTC(2026, 0, 1));
    const [offset] = tokenize('DateTime( 2026-01-01T01:30:00.250+01:30 )');
    assert.equal(offset?.kind === 'datetime' && offset.value, Date.UTC(2026, 0, 1, 0, 0, 0, 250));
  });

  it('treats `datetime` without a parenthesis as an ordinary word', () => {
    assert.deepEqual(kinds('datetime = 1'), ['word', 'op', 'number', 'eof']);
  });

  it('ends with an eof token at the column after the text', () => {
    assert.deepEqual(tokenize('  '), [{ kind: 'eof', text: '', column: 3 }]);
  });
});

describe('tokenize errors', () => {
  it('names the column and what was expected', () => {
    const cases: [string, number, RegExp][] = [
      ['name = "abc', 12, /expected a closing '"' at column 12 for the string opened at column 8/],
      [String.raw`name = "a\q"`, 11, /expected one of .* after '\\' at column 11, found "q"/],
      ['size = 12abc', 8, /expected a number .* at column 8, found "12abc"/],
      ['size = 1.', 8, /expected a number .* at column 8/],
      ['size = -x', 9, /expected a digit after '-' at column 9/],
      ['a ! 1', 4, /expected '=' after '!' at column 4/],
      ['authPolicy. = 1', 12, /expected a field name after '\.' at column 12/],
      ['name = #x', 8, /unexpected character "#" at column 8; expected/],
      ['at = datetime(2026-01-01T00:00:00Z', 35, /expected '\)' to close 'datetime\(' at column 35/],
      ['at = datetime(yesterday)', 6, /expected an RFC3339 date-time .* at column 6, found "yesterday"/],
    ];
    for (const [text, column, message] of cases) {
      const error = lexError(text);
      assert.match(error.message, message, text);
      assert.equal(error.column, column, text);
    }
  });
});

describe('parseRfc3339', () => {
  it('accepts RFC3339 date-times with Z or a numeric offset and fractions', () => {
    assert.equal(parseRfc3339('2026-01-01T00:00:00Z'), Date.UTC(2026, 0, 1));
    assert.equal(parseRfc3339('2026-01-01t00:00:00z'), Date.UTC(2026, 0, 1));
    assert.equal(parseRfc3339('2026-01-01T02:00:00+02:00'), Date.UTC(2026, 0, 1));
    assert.equal(parseRfc3339('2026-01-01T00:00:00.5-00:30'), Date.UTC(2026, 0, 1, 0, 30, 0, 500));
  });

  it('rejects dates without a zone, impossible dates and other formats', () => {
    for (const bad of ['2026-01-01', '2026-01-01T00:00:00', '2026-02-30T00:00:00Z', '2026-13-01T00:00:00Z', '2026-01-01T24:00:00Z', '2026-01-01T00:00:00+25:00', 'now']) {
      assert.equal(parseRfc3339(bad), undefined, bad);
    }
  });
});
