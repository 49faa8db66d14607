// Recursive-descent parser for the ZitiQL subset used by list endpoints. Precedence, loosest first:
// `or`, `and`, `not`, then a single condition or a parenthesised group. Keywords are case-insensitive.
//
//   query     := [orExpr] ['sort' 'by' sortField (',' sortField)*] ['skip' int] ['limit' (int | 'none')]
//   orExpr    := andExpr ('or' andExpr)*
//   andExpr   := unary ('and' unary)*
//   unary     := 'not' unary | '(' orExpr ')' | 'true' | 'false' | 'isEmpty' '(' field ')' | condition
//   condition := operand ( cmpOp value | ['not'] textOp string | ['not'] 'in' '[' value (',' value)* ']'
//                        | ['not'] 'between' value 'and' value )
//   operand   := field | ('anyOf' | 'allOf' | 'noneOf' | 'count') '(' field ')'
import { FilterError } from './filter-error.ts';
import { tokenize } from './filter-lexer.ts';
import type { ComparisonSymbol, Token } from './filter-lexer.ts';

export type TextOperator = 'contains' | 'icontains' | 'startswith' | 'endswith';
export type ComparisonOperator = ComparisonSymbol | TextOperator;
export type SetFunction = 'anyOf' | 'allOf' | 'noneOf' | 'count';
export type SortDirection = 'asc' | 'desc';

export type Literal =
  | { readonly kind: 'string'; readonly value: string; readonly column: number }
  | { readonly kind: 'number'; readonly value: number; readonly column: number }
  | { readonly kind: 'boolean'; readonly value: boolean; readonly column: number }
  /** `value` is the instant in epoch milliseconds. */
  | { readonly kind: 'datetime'; readonly value: number; readonly column: number }
  | { readonly kind: 'null'; readonly column: number };

export type Operand =
  | { readonly kind: 'field'; readonly field: string; readonly column: number }
  | { readonly kind: 'set'; readonly fn: SetFunction; readonly field: string; readonly column: number; readonly fieldColumn: number };

export type FilterExpr =
  | { readonly type: 'and' | 'or'; readonly operands: readonly FilterExpr[] }
  | { readonly type: 'not'; readonly operand: FilterExpr }
  | { readonly type: 'const'; readonly value: boolean }
  | { readonly type: 'isEmpty'; readonly field: string; readonly column: number }
  /** `negated` is only ever true for the text operators (`not contains` and friends). */
  | { readonly type: 'compare'; readonly lhs: Operand; readonly op: ComparisonOperator; readonly negated: boolean; readonly value: Literal; readonly column: number }
  | { readonly type: 'in'; readonly lhs: Operand; readonly negated: boolean; readonly values: readonly Literal[]; readonly column: number }
  | { readonly type: 'between'; readonly lhs: Operand; readonly negated: boolean; readonly low: Literal; readonly high: Literal; readonly column: number };

export interface SortClauseField {
  readonly field: string;
  readonly direction: SortDirection;
  readonly column: number;
}

export interface FilterQuery {
  /** Absent when the filter holds only clauses (e.g. `limit 5`) or nothing at all. */
  readonly where?: FilterExpr;
  readonly sort?: readonly SortClauseField[];
  /** Raw numbers as written; pagination.ts applies the bounds. */
  readonly skip?: number;
  readonly limit?: number | 'none';
}

const textOperators: ReadonlySet<string> = new Set<TextOperator>(['contains', 'icontains', 'startswith', 'endswith']);
const setFunctions: Readonly<Record<string, SetFunction>> = { anyof: 'anyOf', allof: 'allOf', noneof: 'noneOf', count: 'count' };
const negatableOperators: ReadonlySet<string> = new Set([...textOperators, 'in', 'between']);
// Words that can never name a field where a condition starts, so a stray keyword gets a clear message.
const reserved: ReadonlySet<string> = new Set(['and', 'or', 'not', 'in', 'between', 'null', 'true', 'false', ...textOperators]);

// Bounds the recursion of nested parentheses and `not`, so a hostile filter cannot exhaust the stack.
const MAX_NESTING = 100;

class Parser {
  private pos = 0;
  private depth = 0;

  constructor(private readonly tokens: readonly Token[]) {}

  private peek(ahead = 0): Token {
    return this.tokens[Math.min(this.pos + ahead, this.tokens.length - 1)]!;
  }

  private advance(): Token {
    const token = this.peek();
    if (token.kind !== 'eof') this.pos++;
    return token;
  }

  private isWord(word: string, ahead = 0): boolean {
    const token = this.peek(ahead);
    return token.kind === 'word' && token.lower === word;
  }

  /** Throws `expected <what> after '<previous token>' at column <n>`, pointing at the current token. */
  private fail(what: string): never {
    const token = this.peek();
    const previous = this.pos > 0 ? this.tokens[this.pos - 1] : undefined;
    const after = previous ? ` after '${clip(previous.text)}'` : '';
    throw new FilterError(`expected ${what}${after} at column ${token.column}`, token.column);
  }

  private nest(): void {
    if (++this.depth > MAX_NESTING) {
      throw new FilterError(`expected at most ${MAX_NESTING} levels of nesting at column ${this.peek().column}`, this.peek().column);
    }
  }

  parseQuery(): FilterQuery {
    let where: FilterExpr | undefined;
    let sort: SortClauseField[] | undefined;
    let skip: number | undefined;
    let limit: number | 'none' | undefined;

    if (this.peek().kind !== 'eof' && !this.atLeadingClause()) where = this.parseOr();
    if (this.isWord('sort')) sort = this.parseSortClause();
    if (this.isWord('skip')) skip = this.parseSkip();
    if (this.isWord('limit')) limit = this.parseLimit();

    if (this.peek().kind !== 'eof') {
      const options: string[] = [];
      if (where && !sort && skip === undefined && limit === undefined) options.push("'and'", "'or'");
      if (sort && skip === undefined && limit === undefined) options.push("','");
      if (!sort && skip === undefined && limit === undefined) options.push("'sort by'");
      if (skip === undefined && limit === undefined) options.push("'skip'");
      if (limit === undefined) options.push("'limit'");
      options.push('the end of the filter');
      this.fail(listOf(options));
    }

    return {
      ...(where ? { where } : {}),
      ...(sort ? { sort } : {}),
      ...(skip !== undefined ? { skip } : {}),
      ...(limit !== undefined ? { limit } : {}),
    };
  }

  // A filter may be only clauses (`sort by name limit 5`). `sort`, `skip` and `limit` start a clause
  // unless an operator follows, so fields with those names can still be filtered on.
  private atLeadingClause(): boolean {
    const token = this.peek();
    if (token.kind !== 'word' || !['sort', 'skip', 'limit'].includes(token.lower)) return false;
    const next = this.peek(1);
    if (next.kind === 'op') return false;
    return !(next.kind === 'word' && (next.lower === 'not' || negatableOperators.has(next.lower)));
  }

  private parseOr(): FilterExpr {
    const operands = [this.parseAnd()];
    while (this.isWord('or')) {
      this.advance();
      operands.push(this.parseAnd());
    }
    return operands.length === 1 ? operands[0]! : { type: 'or', operands };
  }

  private parseAnd(): FilterExpr {
    const operands = [this.parseUnary()];
    while (this.isWord('and')) {
      this.advance();
      operands.push(this.parseUnary());
    }
    return operands.length === 1 ? operands[0]! : { type: 'and', operands };
  }

  private parseUnary(): FilterExpr {
    const token = this.peek();

    if (this.isWord('not')) {
      this.advance();
      this.nest();
      const operand = this.parseUnary();
      this.depth--;
      return { type: 'not', operand };
    }

    if (token.kind === '(') {
      this.advance();
      this.nest();
      const inner = this.parseOr();
      if (this.peek().kind !== ')') this.fail("'and', 'or' or ')'");
      this.advance();
      this.depth--;
      return inner;
    }

    if (token.kind !== 'word' || (reserved.has(token.lower) && token.lower !== 'true' && token.lower !== 'false')) {
      this.fail('a condition');
    }

    if (token.lower === 'true' || token.lower === 'false') {
      this.advance();
      return { type: 'const', value: token.lower === 'true' };
    }

    if (token.lower === 'isempty' && this.peek(1).kind === '(') {
      this.advance();
      const field = this.parseFunctionArgument();
      return { type: 'isEmpty', field: field.text, column: field.column };
    }

    const fn = setFunctions[token.lower];
    if (fn && this.peek(1).kind === '(') {
      this.advance();
      const field = this.parseFunctionArgument();
      return this.parseCondition({ kind: 'set', fn, field: field.text, column: token.column, fieldColumn: field.column });
    }

    this.advance();
    return this.parseCondition({ kind: 'field', field: token.text, column: token.column });
  }

  /** Reads `( field )` after a function name. */
  private parseFunctionArgument(): Token {
    this.advance();
    const field = this.peek();
    if (field.kind !== 'word' || reserved.has(field.lower)) this.fail('a field name');
    this.advance();
    if (this.peek().kind !== ')') this.fail("')'");
    this.advance();
    return field;
  }

  private parseCondition(lhs: Operand): FilterExpr {
    const token = this.peek();

    if (token.kind === 'op') {
      this.advance();
      return { type: 'compare', lhs, op: token.op, negated: false, value: this.parseValue(), column: token.column };
    }

    if (token.kind !== 'word') this.fail('an operator');

    let negated = false;
    let operator = token;
    if (token.lower === 'not') {
      this.advance();
      const next = this.peek();
      if (next.kind !== 'word' || !negatableOperators.has(next.lower)) {
        this.fail("'contains', 'icontains', 'startswith', 'endswith', 'in' or 'between'");
      }
      negated = true;
      operator = next;
    }

    if (textOperators.has(operator.lower)) {
      this.advance();
      const op = operator.lower as TextOperator;
      return { type: 'compare', lhs, op, negated, value: this.parseValue(), column: token.column };
    }

    if (operator.lower === 'in') {
      this.advance();
      return { type: 'in', lhs, negated, values: this.parseList(), column: token.column };
    }

    if (operator.lower === 'between') {
      this.advance();
      const low = this.parseValue();
      if (!this.isWord('and')) this.fail("'and'");
      this.advance();
      const high = this.parseValue();
      return { type: 'between', lhs, negated, low, high, column: token.column };
    }

    return this.fail('an operator');
  }

  private parseValue(): Literal {
    const token = this.peek();
    const column = token.column;
    switch (token.kind) {
      case 'string':
        this.advance();
        return { kind: 'string', value: token.value, column };
      case 'number':
        this.advance();
        return { kind: 'number', value: token.value, column };
      case 'datetime':
        this.advance();
        return { kind: 'datetime', value: token.value, column };
      case 'word':
        if (token.lower === 'true' || token.lower === 'false') {
          this.advance();
          return { kind: 'boolean', value: token.lower === 'true', column };
        }
        if (token.lower === 'null') {
          this.advance();
          return { kind: 'null', column };
        }
        break;
      default:
        break;
    }
    return this.fail('a value');
  }

  private parseList(): Literal[] {
    if (this.peek().kind !== '[') this.fail("'['");
    this.advance();
    const values = [this.parseValue()];
    for (;;) {
      const token = this.peek();
      if (token.kind === ']') break;
      if (token.kind !== ',') this.fail("',' or ']'");
      this.advance();
      values.push(this.parseValue());
    }
    this.advance();
    return values;
  }

  private parseSortClause(): SortClauseField[] {
    this.advance();
    if (!this.isWord('by')) this.fail("'by'");
    this.advance();
    const fields: SortClauseField[] = [];
    for (;;) {
      const token = this.peek();
      if (token.kind !== 'word' || reserved.has(token.lower)) this.fail('a field name');
      this.advance();
      let direction: SortDirection = 'asc';
      const next = this.peek();
      if (next.kind === 'word' && (next.lower === 'asc' || next.lower === 'desc')) {
        this.advance();
        direction = next.lower;
      }
      fields.push({ field: token.text, direction, column: token.column });
      if (this.peek().kind !== ',') return fields;
      this.advance();
    }
  }

  private parseSkip(): number {
    this.advance();
    const token = this.peek();
    if (token.kind !== 'number' || !token.integer) this.fail('a whole number');
    this.advance();
    return token.value;
  }

  private parseLimit(): number | 'none' {
    this.advance();
    const token = this.peek();
    if (token.kind === 'word' && token.lower === 'none') {
      this.advance();
      return 'none';
    }
    if (token.kind !== 'number' || !token.integer) this.fail("a whole number or 'none'");
    this.advance();
    return token.value;
  }
}

function clip(text: string): string {
  return text.length > 24 ? `${text.slice(0, 21)}...` : text;
}

function listOf(options: readonly string[]): string {
  return options.length === 1 ? options[0]! : `${options.slice(0, -1).join(', ')} or ${options[options.length - 1]}`;
}

/** Parses a ZitiQL filter. Throws FilterError with a 1-based column on any syntax error. */
export function parseFilter(text: string): FilterQuery {
  return new Parser(tokenize(text)).parseQuery();
}
