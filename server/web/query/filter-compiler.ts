// Compiles a parsed filter against one entity type's field catalogue into a plain predicate.
// All checking (unknown fields, operator/type mismatches) happens here, once per request, and the
// returned closures do no parsing or lookups per entity.
//
// Semantics:
// - A comparison with a missing value (null, undefined or unreadable) is false, including `!=`,
//   `not contains`, `not in` and `not between`; `= null` / `!= null` test for the missing value itself.
// - `between a and b` is half-open, a <= v < b, as in the OpenZiti controller.
// - `anyOf(f)` holds if some element matches, `allOf(f)` if there is at least one element and every
//   element matches (so an empty list never satisfies it), `noneOf(f)` if no element matches.
// - `count(f)` is the number of elements, 0 when the list is missing.
// - `isEmpty(f)` holds for a missing value, an empty string or an empty list.
import { FilterError } from './filter-error.ts';
import type { FilterExpr, Literal, Operand, SetFunction } from './filter-parser.ts';
import { describeType, fieldNames, findField, readList, readScalar } from './field-catalogue.ts';
import type { FieldCatalogue, FieldDef, Scalar, ScalarFieldType } from './field-catalogue.ts';

export type Predicate<T> = (entity: T) => boolean;

type ScalarTest = (value: Scalar) => boolean;

// What a condition's left-hand side reads from an entity.
type CompiledOperand<T> =
  | { readonly kind: 'scalar'; readonly type: ScalarFieldType; readonly label: string; readonly read: (entity: T) => Scalar | undefined }
  | { readonly kind: 'elements'; readonly fn: Exclude<SetFunction, 'count'>; readonly label: string; readonly read: (entity: T) => readonly string[] };

const always: Predicate<unknown> = () => true;
const never: Predicate<unknown> = () => false;

export function compileFilter<T>(expr: FilterExpr | undefined, catalogue: FieldCatalogue<T>): Predicate<T> {
  return expr ? compileExpr(expr, catalogue) : always;
}

function compileExpr<T>(expr: FilterExpr, catalogue: FieldCatalogue<T>): Predicate<T> {
  switch (expr.type) {
    case 'and': {
      const parts = expr.operands.map((e) => compileExpr(e, catalogue));
      return (entity) => {
        for (const part of parts) if (!part(entity)) return false;
        return true;
      };
    }
    case 'or': {
      const parts = expr.operands.map((e) => compileExpr(e, catalogue));
      return (entity) => {
        for (const part of parts) if (part(entity)) return true;
        return false;
      };
    }
    case 'not': {
      const inner = compileExpr(expr.operand, catalogue);
      return (entity) => !inner(entity);
    }
    case 'const':
      return expr.value ? always : never;
    case 'isEmpty':
      return compileIsEmpty(lookup(catalogue, expr.field, expr.column));
    case 'compare': {
      if (expr.value.kind === 'null') return compileNullCheck(expr.lhs, expr.op, expr.column, catalogue);
      const operand = compileOperand(expr.lhs, catalogue);
      return applyTest(operand, compareTest(operand, expr.op, expr.negated, expr.value, expr.column));
    }
    case 'in': {
      const operand = compileOperand(expr.lhs, catalogue);
      const set = new Set(expr.values.map((v) => checkLiteral(operand, v, 'in')));
      return applyTest(operand, expr.negated ? (v) => !set.has(v) : (v) => set.has(v));
    }
    case 'between': {
      const operand = compileOperand(expr.lhs, catalogue);
      checkOrdered(operand, 'between', expr.column);
      const low = checkLiteral(operand, expr.low, 'between');
      const high = checkLiteral(operand, expr.high, 'between');
      const inRange: ScalarTest = (v) => v >= low && v < high;
      return applyTest(operand, expr.negated ? (v) => !inRange(v) : inRange);
    }
  }
}

function lookup<T>(catalogue: FieldCatalogue<T>, field: string, column: number): FieldDef<T> {
  const def = findField(catalogue, field);
  if (!def) {
    throw new FilterError(
      `unknown field '${field}' at column ${column}; expected one of: ${fieldNames(catalogue).join(', ')}`,
      column,
    );
  }
  return def;
}

function compileIsEmpty<T>(def: FieldDef<T>): Predicate<T> {
  switch (def.type) {
    case 'string[]':
      return (entity) => readList(def.get(entity)).length === 0;
    case 'string':
      return (entity) => {
        const value = readScalar('string', def.get(entity));
        return value === undefined || value === '';
      };
    default:
      return (entity) => readScalar(def.type, def.get(entity)) === undefined;
  }
}

function compileOperand<T>(lhs: Operand, catalogue: FieldCatalogue<T>): CompiledOperand<T> {
  const def = lookup(catalogue, lhs.field, lhs.kind === 'set' ? lhs.fieldColumn : lhs.column);

  if (lhs.kind === 'field') {
    if (def.type === 'string[]') {
      throw new FilterError(
        `field '${lhs.field}' is a list at column ${lhs.column}; expected it inside anyOf(${lhs.field}), allOf(${lhs.field}), noneOf(${lhs.field}), count(${lhs.field}) or isEmpty(${lhs.field})`,
        lhs.column,
      );
    }
    const type = def.type;
    const get = def.get as (entity: T) => unknown;
    return { kind: 'scalar', type, label: `field '${lhs.field}'`, read: (entity) => readScalar(type, get(entity)) };
  }

  if (def.type !== 'string[]') {
    throw new FilterError(
      `expected a list field in ${lhs.fn}() at column ${lhs.fieldColumn}, but '${lhs.field}' is ${describeType(def.type)}`,
      lhs.fieldColumn,
    );
  }
  const get = def.get;
  const label = `${lhs.fn}(${lhs.field})`;
  if (lhs.fn === 'count') {
    return { kind: 'scalar', type: 'number', label, read: (entity) => readList(get(entity)).length };
  }
  return { kind: 'elements', fn: lhs.fn, label, read: (entity) => readList(get(entity)) };
}

/** The type a test sees: the field's own type, or string for the elements of a list. */
const valueType = <T>(operand: CompiledOperand<T>): ScalarFieldType => (operand.kind === 'scalar' ? operand.type : 'string');

function compileNullCheck<T>(lhs: Operand, op: string, column: number, catalogue: FieldCatalogue<T>): Predicate<T> {
  if (lhs.kind === 'set') {
    throw new FilterError(`expected a string value for ${lhs.fn}(${lhs.field}) at column ${column}, not null; use isEmpty(${lhs.field}) to test for an empty list`, column);
  }
  if (op !== '=' && op !== '!=') {
    throw new FilterError(`expected '=' or '!=' before null at column ${column}, found '${op}'`, column);
  }
  const def = lookup(catalogue, lhs.field, lhs.column);
  const get = def.get as (entity: T) => unknown;
  const isMissing: Predicate<T> =
    def.type === 'string[]' ? (entity) => !Array.isArray(get(entity)) : (entity) => readScalar(def.type, get(entity)) === undefined;
  return op === '=' ? isMissing : (entity) => !isMissing(entity);
}

function checkOrdered<T>(operand: CompiledOperand<T>, op: string, column: number): void {
  if (valueType(operand) === 'boolean') {
    throw new FilterError(`expected a string, number or datetime field before '${op}' at column ${column}, but ${operand.label} is a boolean`, column);
  }
}

/** Checks a literal against the operand's type and returns it as a comparable scalar. */
function checkLiteral<T>(operand: CompiledOperand<T>, literal: Literal, op: string): Scalar {
  const type = valueType(operand);
  if (literal.kind === 'null') {
    throw new FilterError(`expected ${describeType(type)} value after '${op}' at column ${literal.column}, not null; use '= null' to test for a missing value`, literal.column);
  }
  if (literal.kind !== type) {
    const hint = type === 'datetime' ? '; write instants as datetime(2026-01-01T00:00:00Z)' : '';
    throw new FilterError(
      `expected ${describeType(type)} value at column ${literal.column} to compare with ${operand.label}, found ${describeType(literal.kind)}${hint}`,
      literal.column,
    );
  }
  return literal.value;
}

function compareTest<T>(operand: CompiledOperand<T>, op: string, negated: boolean, literal: Literal, column: number): ScalarTest {
  const type = valueType(operand);
  let test: ScalarTest;
  switch (op) {
    case 'contains':
    case 'icontains':
    case 'startswith':
    case 'endswith': {
      const name = negated ? `not ${op}` : op;
      if (type !== 'string') {
        throw new FilterError(`expected a string field before '${name}' at column ${column}, but ${operand.label} is ${describeType(type)}`, column);
      }
      const text = checkLiteral(operand, literal, name) as string;
      if (op === 'contains') test = (v) => (v as string).includes(text);
      else if (op === 'startswith') test = (v) => (v as string).startsWith(text);
      else if (op === 'endswith') test = (v) => (v as string).endsWith(text);
      else {
        const lower = text.toLowerCase();
        test = (v) => (v as string).toLowerCase().includes(lower);
      }
      return negated ? (v) => !test(v) : test;
    }
    case '=': {
      const value = checkLiteral(operand, literal, op);
      return (v) => v === value;
    }
    case '!=': {
      const value = checkLiteral(operand, literal, op);
      return (v) => v !== value;
    }
    default: {
      checkOrdered(operand, op, column);
      const value = checkLiteral(operand, literal, op);
      if (op === '<') return (v) => v < value;
      if (op === '<=') return (v) => v <= value;
      if (op === '>') return (v) => v > value;
      return (v) => v >= value;
    }
  }
}

/** Applies a value test to what the operand reads, with the missing-value and set-function rules. */
function applyTest<T>(operand: CompiledOperand<T>, test: ScalarTest): Predicate<T> {
  if (operand.kind === 'scalar') {
    const read = operand.read;
    return (entity) => {
      const value = read(entity);
      return value !== undefined && test(value);
    };
  }
  const read = operand.read;
  switch (operand.fn) {
    case 'anyOf':
      return (entity) => read(entity).some(test);
    case 'allOf':
      return (entity) => {
        const values = read(entity);
        return values.length > 0 && values.every(test);
      };
    case 'noneOf':
      return (entity) => !read(entity).some(test);
  }
}
