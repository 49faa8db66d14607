// Turns ZitiQL filter text into tokens. Keywords are not decided here: every bare word is a `word`
// token with its lower-cased text, and the parser decides by position whether it is a keyword or a field.
import { FilterError } from './filter-error.ts';

export type ComparisonSymbol = '=' | '!=' | '<' | '<=' | '>' | '>=';

interface TokenBase {
  /** The token as written in the filter. */
  readonly text: string;
  /** 1-based column of the token's first character. */
  readonly column: number;
}

export type Token =
  | (TokenBase & { readonly kind: 'word'; readonly lower: string })
  | (TokenBase & { readonly kind: 'string'; readonly value: string })
  | (TokenBase & { readonly kind: 'number'; readonly value: number; readonly integer: boolean })
  /** `value` is the instant in epoch milliseconds. */
  | (TokenBase & { readonly kind: 'datetime'; readonly value: number })
  | (TokenBase & { readonly kind: 'op'; readonly op: ComparisonSymbol })
  | (TokenBase & { readonly kind: '(' | ')' | '[' | ']' | ',' | 'eof' });

export type TokenKind = Token['kind'];

const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\n' || c === '\r';
const isDigit = (c: string) => c >= '0' && c <= '9';
const isWordStart = (c: string) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_';
const isWordPart = (c: string) => isWordStart(c) || isDigit(c);

const escapes: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', n: '\n', r: '\r', t: '\t', f: '\f' };

const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** Reads an RFC3339 date-time as epoch ms, or undefined when it is malformed or names an impossible date. */
export function parseRfc3339(text: string): number | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const zone = m[8]!;
  if (zone.length > 1 && (Number(zone.slice(1, 3)) > 23 || Number(zone.slice(4, 6)) > 59)) return undefined;
  // Date.parse rolls 2026-02-30 over into March; rebuild the fields to refuse such dates instead.
  const probe = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  if (
    probe.getUTCFullYear() !== year ||
    probe.getUTCMonth() !== month - 1 ||
    probe.getUTCDate() !== day ||
    probe.getUTCHours() !== hour ||
    probe.getUTCMinutes() !== minute ||
    probe.getUTCSeconds() !== second
  ) {
    return undefined;
  }
  const ms = Date.parse(text.toUpperCase());
  return Number.isNaN(ms) ? undefined : ms;
}

const show = (c: string) => (c === '' ? 'end of filter' : JSON.stringify(c));

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const col = (index: number) => index + 1;

  while (i < text.length) {
    const c = text[i]!;
    const start = i;

    if (isSpace(c)) {
      i++;
      continue;
    }

    if (c === '(' || c === ')' || c === '[' || c === ']' || c === ',') {
      tokens.push({ kind: c, text: c, column: col(i) });
      i++;
      continue;
    }

    if (c === '=' || c === '<' || c === '>' || c === '!') {
      const two = text.slice(i, i + 2);
      if (c === '!' && two !== '!=') {
        throw new FilterError(`expected '=' after '!' at column ${col(i + 1)}`, col(i + 1));
      }
      const op = (two === '<=' || two === '>=' || two === '!=' ? two : c) as ComparisonSymbol;
      tokens.push({ kind: 'op', op, text: op, column: col(i) });
      i += op.length;
      continue;
    }

    if (c === '"') {
      let value = '';
      i++;
      for (;;) {
        if (i >= text.length) {
          throw new FilterError(
            `expected a closing '"' at column ${col(i)} for the string opened at column ${col(start)}`,
            col(i),
          );
        }
        const d = text[i]!;
        if (d === '"') break;
        if (d === '\\') {
          const e = text[i + 1] ?? '';
          const replacement = escapes[e];
          if (replacement === undefined) {
            throw new FilterError(
              `expected one of \\" \\\\ \\n \\r \\t \\f after '\\' at column ${col(i + 1)}, found ${show(e)}`,
              col(i + 1),
            );
          }
          value += replacement;
          i += 2;
          continue;
        }
        value += d;
        i++;
      }
      i++;
      tokens.push({ kind: 'string', value, text: text.slice(start, i), column: col(start) });
      continue;
    }

    if (isDigit(c) || (c === '-' && isDigit(text[i + 1] ?? ''))) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(text)!;
      i += m[0].length;
      if (i < text.length && (isWordPart(text[i]!) || text[i] === '.')) {
        let end = i;
        while (end < text.length && (isWordPart(text[end]!) || text[end] === '.')) end++;
        throw new FilterError(
          `expected a number such as 42 or -1.5 at column ${col(start)}, found ${JSON.stringify(text.slice(start, end))}`,
          col(start),
        );
      }
      tokens.push({ kind: 'number', value: Number(m[0]), integer: /^-?\d+$/.test(m[0]), text: m[0], column: col(start) });
      continue;
    }

    if (c === '-') {
      throw new FilterError(`expected a digit after '-' at column ${col(i + 1)}`, col(i + 1));
    }

    if (isWordStart(c)) {
      i++;
      for (;;) {
        while (i < text.length && isWordPart(text[i]!)) i++;
        if (text[i] !== '.') break;
        // A dot joins path segments (`authPolicy.name`), so it must be followed by another segment.
        if (!isWordStart(text[i + 1] ?? '')) {
          throw new FilterError(`expected a field name after '.' at column ${col(i + 1)}`, col(i + 1));
        }
        i++;
      }
      const word = text.slice(start, i);
      const lower = word.toLowerCase();
      if (lower === 'datetime' && text[i] === '(') {
        const close = text.indexOf(')', i);
        if (close < 0) {
          throw new FilterError(`expected ')' to close 'datetime(' at column ${col(text.length)}`, col(text.length));
        }
        const inner = text.slice(i + 1, close).trim();
        const value = parseRfc3339(inner);
        if (value === undefined) {
          throw new FilterError(
            `expected an RFC3339 date-time such as datetime(2026-01-01T00:00:00Z) at column ${col(start)}, found ${JSON.stringify(inner)}`,
            col(start),
          );
        }
        i = close + 1;
        tokens.push({ kind: 'datetime', value, text: text.slice(start, i), column: col(start) });
        continue;
      }
      tokens.push({ kind: 'word', lower, text: word, column: col(start) });
      continue;
    }

    throw new FilterError(
      `unexpected character ${JSON.stringify(c)} at column ${col(i)}; expected a field name, a value, an operator, a parenthesis or a comma`,
      col(i),
    );
  }

  tokens.push({ kind: 'eof', text: '', column: col(text.length) });
  return tokens;
}
