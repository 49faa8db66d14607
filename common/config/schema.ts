// A small declarative schema for config files. Schemas are built with `s.*`, typed by inference (`Infer<S>`),
// and checked by `validate`, which walks the whole document once and collects EVERY problem rather than
// stopping at the first, so a user fixes a broken file in one round.
//
// Semantics worth knowing:
// - A default is written in the file's own form (`'30s'`, `'./data'`, `{}`) and validated like user input, so a
//   section defaulted to `{}` comes out with all its own defaults filled in.
// - An absent key and an explicit `null` (`log:` with nothing under it) are the same thing.
// - Rules (relations between keys) see the value with invalid parts left out, so they still run when an unrelated
//   key is broken; transforms run only on a subtree without errors, so they see exactly the inferred type.
// - An object with `otherKeys` is open: keys it does not name are validated with that schema and kept (component
//   options that a file may carry for someone else); only a near-miss of a named key is reported, as a warning.

import { resolve as resolvePath } from 'node:path';
import { parseAddress, parseHostPort } from './address.ts';
import type { Address, HostPort, ParseResult } from './address.ts';
import { formatDuration, parseGoDuration } from './go-duration.ts';
import { formatKeyPath } from './key-path.ts';
import type { KeyPath, PathSegment } from './key-path.ts';
import type { ConfigProblem, Severity } from './problem.ts';
import { suggestKey } from './suggest-key.ts';

export type { Address, HostPort } from './address.ts';
export type { KeyPath, PathSegment } from './key-path.ts';
export type { ConfigProblem, Severity } from './problem.ts';

export type UnknownKeyPolicy = 'error' | 'warning';
type Presence = 'optional' | 'present';

/** What a rule reports; `path` is relative to the node the rule is attached to. */
export interface RuleFinding {
  readonly path?: KeyPath;
  readonly rule: string;
  readonly message: string;
  readonly severity?: Severity;
  readonly value?: unknown;
}

export interface SchemaContext {
  /** Where the node sits in the document. */
  readonly path: KeyPath;
  /** Directory that relative paths resolve against (the config file's). */
  readonly baseDir: string;
}

/** The value as a rule sees it: any part that failed validation is absent. */
export type Loose<T> = T extends readonly (infer E)[]
  ? readonly (Loose<E> | undefined)[]
  : T extends object
    ? { readonly [K in keyof T]?: Loose<T[K]> }
    : T;

export type Rule<T> = (value: Loose<T>, ctx: SchemaContext) => readonly RuleFinding[];

type Spec =
  | { readonly kind: 'object'; readonly fields: Fields; readonly unknownKeys?: UnknownKeyPolicy; readonly aliases: Readonly<Record<string, string>>; readonly label?: string; readonly otherKeys?: AnySchema }
  | { readonly kind: 'record'; readonly values: AnySchema; readonly keyPattern?: RegExp; readonly label?: string }
  | { readonly kind: 'array'; readonly items: AnySchema; readonly minItems?: number; readonly maxItems?: number }
  | { readonly kind: 'tagged'; readonly tag: string; readonly variants: Fields; readonly aliases: Readonly<Record<string, string>>; readonly unknownTag: Severity; readonly label?: string }
  | { readonly kind: 'string'; readonly enum?: readonly string[]; readonly caseInsensitive?: boolean; readonly pattern?: RegExp; readonly patternMessage?: string; readonly minLength?: number }
  | { readonly kind: 'integer'; readonly enum?: readonly number[]; readonly min?: number; readonly max?: number }
  | { readonly kind: 'number'; readonly min?: number; readonly max?: number }
  | { readonly kind: 'boolean'; readonly acceptStrings?: boolean }
  | { readonly kind: 'duration'; readonly min?: number; readonly max?: number }
  | { readonly kind: 'address'; readonly protocols?: readonly string[] }
  | { readonly kind: 'hostPort' }
  | { readonly kind: 'path' }
  | { readonly kind: 'any' };

interface Modifiers {
  readonly required?: boolean;
  readonly defaultInput?: unknown;
  readonly description?: string;
  readonly rules: readonly Rule<never>[];
  readonly transforms: readonly ((value: never, ctx: SchemaContext) => unknown)[];
}

/** One node of a schema. `T` is the validated value's type; `P` says whether it is always present in its parent. */
export class Schema<T, P extends Presence = 'optional'> {
  declare readonly __type: T;
  declare readonly __presence: P;

  constructor(
    readonly spec: Spec,
    readonly modifiers: Modifiers = { rules: [], transforms: [] },
  ) {}

  /** Absent → an error with rule `required`. */
  required(): Schema<T, 'present'> {
    return new Schema(this.spec, { ...this.modifiers, required: true });
  }

  /** Absent → `input` is validated in its place (write it the way a file would: `'30s'`, `{}`). */
  default(input: unknown): Schema<T, 'present'> {
    return new Schema(this.spec, { ...this.modifiers, defaultInput: input });
  }

  describe(description: string): Schema<T, P> {
    return new Schema(this.spec, { ...this.modifiers, description });
  }

  /** Adds a check on this node's value, typically a relation between its keys. */
  rule(check: Rule<T>): Schema<T, P> {
    return new Schema(this.spec, { ...this.modifiers, rules: [...this.modifiers.rules, check as Rule<never>] });
  }

  /** Reshapes a valid value (e.g. fill a default from a sibling key). */
  transform<U>(map: (value: T, ctx: SchemaContext) => U): Schema<U, P> {
    return new Schema(this.spec, { ...this.modifiers, transforms: [...this.modifiers.transforms, map as (value: never, ctx: SchemaContext) => unknown] });
  }
}

// `any`: a field map holds schemas of every value type.
type AnySchema = Schema<any, Presence>;
type Fields = Readonly<Record<string, AnySchema>>;

export type Infer<S> = S extends Schema<infer T, Presence> ? T : never;
type Simplify<T> = { [K in keyof T]: T[K] } & {};
type PresentKeys<F extends Fields> = { [K in keyof F]: F[K] extends Schema<unknown, 'present'> ? K : never }[keyof F];
export type ObjectOf<F extends Fields> = Simplify<
  { readonly [K in PresentKeys<F>]: Infer<F[K]> } & { readonly [K in Exclude<keyof F, PresentKeys<F>>]?: Infer<F[K]> }
>;
type TaggedOf<Tag extends string, V extends Fields> = {
  [K in keyof V & string]: Simplify<{ readonly [Q in Tag]: K } & Infer<V[K]>>;
}[keyof V & string];

// ---- builders ---------------------------------------------------------------------------------------------

interface ObjectOptions {
  /** Keys not in `fields`: an error (our own files) or a warning (files that carry foreign keys). */
  readonly unknownKeys?: UnknownKeyPolicy;
  /** Alternative spellings: `{ peerHeartbeats: 'peerHeartbeatOptions' }`. Setting both is an error. */
  readonly aliases?: Readonly<Record<string, string>>;
  /** Names the thing in type errors: "subscription at index 2 is not a map". */
  readonly label?: string;
}

/** With `otherKeys`, keys not in `fields` are validated by that schema and kept (a near-miss of a field warns). */
function object<F extends Fields, O extends AnySchema>(fields: F, options: ObjectOptions & { readonly otherKeys: O }): Schema<ObjectOf<F> & Readonly<Record<string, Infer<O>>>>;
function object<F extends Fields>(fields: F, options?: ObjectOptions): Schema<ObjectOf<F>>;
function object(fields: Fields, options: ObjectOptions & { readonly otherKeys?: AnySchema } = {}): Schema<unknown> {
  return new Schema({ kind: 'object', fields, aliases: options.aliases ?? {}, ...pick(options, 'unknownKeys', 'label', 'otherKeys') });
}

function record<S extends AnySchema>(values: S, options: { keyPattern?: RegExp; label?: string } = {}): Schema<Readonly<Record<string, Infer<S>>>> {
  return new Schema({ kind: 'record', values, ...pick(options, 'keyPattern', 'label') });
}

function array<S extends AnySchema>(items: S, options: { minItems?: number; maxItems?: number } = {}): Schema<readonly Infer<S>[]> {
  return new Schema({ kind: 'array', items, ...pick(options, 'minItems', 'maxItems') });
}

interface TaggedOptions {
  /** An unknown tag: an error, or a warning that drops the item (for lists where unknown entries are ignored). */
  readonly unknownTag?: Severity;
  /** Legacy tag spellings mapped to their variant: `{ 'edge.apiSessions': 'apiSession' }`. */
  readonly aliases?: Readonly<Record<string, string>>;
  readonly label?: string;
}

/** Maps told apart by one key (`type`); the other keys are validated by the variant's object schema. */
function tagged<const Tag extends string, V extends Fields>(tag: Tag, variants: V, options: TaggedOptions = {}): Schema<TaggedOf<Tag, V>> {
  return new Schema({ kind: 'tagged', tag, variants, aliases: options.aliases ?? {}, unknownTag: options.unknownTag ?? 'error', ...pick(options, 'label') });
}

interface StringOptions {
  readonly pattern?: RegExp;
  readonly patternMessage?: string;
  readonly minLength?: number;
}
function string<const E extends readonly string[]>(options: StringOptions & { enum: E; caseInsensitive?: boolean }): Schema<E[number]>;
function string(options?: StringOptions): Schema<string>;
function string(options: StringOptions & { enum?: readonly string[]; caseInsensitive?: boolean } = {}): Schema<string> {
  return new Schema({ kind: 'string', ...pick(options, 'enum', 'caseInsensitive', 'pattern', 'patternMessage', 'minLength') });
}

function integer<const E extends readonly number[]>(options: { enum: E }): Schema<E[number]>;
function integer(options?: { min?: number; max?: number }): Schema<number>;
function integer(options: { enum?: readonly number[]; min?: number; max?: number } = {}): Schema<number> {
  return new Schema({ kind: 'integer', ...pick(options, 'enum', 'min', 'max') });
}

function number(options: { min?: number; max?: number } = {}): Schema<number> {
  return new Schema({ kind: 'number', ...pick(options, 'min', 'max') });
}

/** `acceptStrings`: also take "true"/"false", for keys that OpenZiti compares as strings. */
function boolean(options: { acceptStrings?: boolean } = {}): Schema<boolean> {
  return new Schema({ kind: 'boolean', ...pick(options, 'acceptStrings') });
}

/** Go duration text; the value is milliseconds. Bounds are ms or Go text (`'5m'`). */
function duration(options: { min?: number | string; max?: number | string } = {}): Schema<number> {
  return new Schema({ kind: 'duration', ...boundMs('min', options.min), ...boundMs('max', options.max) });
}

/** `<protocol>:<host>:<port>`, parsed. */
function address<const P extends readonly string[]>(options: { protocols: P }): Schema<Address<P[number]>>;
function address(): Schema<Address>;
function address(options: { protocols?: readonly string[] } = {}): Schema<Address> {
  return new Schema({ kind: 'address', ...pick(options, 'protocols') });
}

/** `<host>:<port>` without a protocol, parsed. */
function hostPort(): Schema<HostPort> {
  return new Schema({ kind: 'hostPort' });
}

/** A file system path, made absolute against the validator's base directory. */
function path(): Schema<string> {
  return new Schema({ kind: 'path' });
}

/** Any value, kept as parsed: free-form component options, or the base of a custom check (`.rule` + `.transform`). */
function any(): Schema<unknown> {
  return new Schema({ kind: 'any' });
}

export const s = { object, record, array, tagged, string, integer, number, boolean, duration, address, hostPort, path, any };

function boundMs(key: 'min' | 'max', bound: number | string | undefined): { min?: number } | { max?: number } {
  if (bound === undefined) return {};
  const ms = typeof bound === 'number' ? bound : parseGoDuration(bound);
  if (ms === undefined) throw new Error(`schema bug: ${key} bound "${String(bound)}" is not a Go duration`);
  return { [key]: ms };
}

function pick<O extends object, K extends keyof O>(options: O, ...keys: K[]): Partial<Pick<O, K>> {
  const out: Partial<Pick<O, K>> = {};
  for (const key of keys) if (options[key] !== undefined) out[key] = options[key];
  return out;
}

// ---- validation -------------------------------------------------------------------------------------------

export interface ValidateOptions {
  /** Directory that `s.path()` values resolve against. */
  readonly baseDir: string;
  /** Line of a key path in the source; problems on absent keys get the line of the nearest present ancestor. */
  readonly locate?: (path: KeyPath) => number | undefined;
  /** For objects that do not set their own policy; default 'error'. */
  readonly unknownKeys?: UnknownKeyPolicy;
}

export interface ValidationResult<T> {
  /** The config with defaults filled in, deep-frozen; undefined when any problem is an error. */
  readonly value: T | undefined;
  /** Every problem found, in source order. */
  readonly problems: readonly ConfigProblem[];
}

export function validate<S extends AnySchema>(schema: S, data: unknown, options: ValidateOptions): ValidationResult<Infer<S>> {
  const walker: Walker = {
    problems: [],
    errors: 0,
    baseDir: options.baseDir,
    locate: options.locate ?? (() => undefined),
    unknownKeys: options.unknownKeys ?? 'error',
  };
  // An empty document is an empty map, so each missing required key gets its own problem.
  const input = data === null || data === undefined ? (schema.spec.kind === 'object' ? {} : data) : data;
  const value = walk(schema, input, [], walker);
  const problems = walker.problems
    .map((problem, order) => ({ problem, order }))
    .sort((a, b) => (a.problem.line ?? 0) - (b.problem.line ?? 0) || a.order - b.order)
    .map(({ problem }) => problem);
  return { value: walker.errors === 0 ? (deepFreeze(value) as Infer<S>) : undefined, problems };
}

interface Walker {
  readonly problems: ConfigProblem[];
  errors: number;
  readonly baseDir: string;
  readonly locate: (path: KeyPath) => number | undefined;
  readonly unknownKeys: UnknownKeyPolicy;
}

function report(w: Walker, path: KeyPath, severity: Severity, rule: string, message: string, value?: unknown): void {
  let line: number | undefined;
  for (let depth = path.length; line === undefined && depth > 0; depth--) line = w.locate(path.slice(0, depth));
  if (severity === 'error') w.errors++;
  w.problems.push({
    severity,
    path: formatKeyPath(path),
    ...(line === undefined ? {} : { line }),
    rule,
    message,
    ...(value === undefined ? {} : { value }),
  });
}

/** Validates one node; the result is undefined when the node itself is invalid. */
function walk(schema: AnySchema, raw: unknown, path: KeyPath, w: Walker): unknown {
  const errorsBefore = w.errors;
  let value = check(schema.spec, raw, path, w);
  if (value === undefined) return undefined;
  const ctx: SchemaContext = { path, baseDir: w.baseDir };
  for (const rule of schema.modifiers.rules as readonly Rule<unknown>[]) {
    for (const finding of rule(value, ctx)) {
      const at = [...path, ...(finding.path ?? [])];
      report(w, at, finding.severity ?? 'error', finding.rule, finding.message, finding.value);
    }
  }
  if (w.errors !== errorsBefore) return value; // keep the partial value for rules further up, skip transforms
  for (const map of schema.modifiers.transforms as readonly ((value: unknown, ctx: SchemaContext) => unknown)[]) value = map(value, ctx);
  return value;
}

function check(spec: Spec, raw: unknown, path: KeyPath, w: Walker): unknown {
  switch (spec.kind) {
    case 'object':
      return checkObject(spec, raw, path, w);
    case 'record': {
      if (!isMap(raw)) return typeError(w, path, raw, 'a map', spec.label);
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(raw)) {
        if (spec.keyPattern && !spec.keyPattern.test(key)) report(w, [...path, key], 'error', 'key-pattern', `key "${key}" must match ${spec.keyPattern}`);
        else out[key] = walk(spec.values, item, [...path, key], w);
      }
      return out;
    }
    case 'array': {
      if (!Array.isArray(raw)) return typeError(w, path, raw, 'a list');
      if (spec.minItems !== undefined && raw.length < spec.minItems) {
        report(w, path, 'error', 'min-items', spec.minItems === 1 ? 'must not be empty' : `must have at least ${spec.minItems} items`, raw.length);
      }
      if (spec.maxItems !== undefined && raw.length > spec.maxItems) {
        report(w, path, 'error', 'max-items', `must have at most ${spec.maxItems} items`, raw.length);
      }
      const errorsBefore = w.errors;
      const items = raw.map((item, index) => walk(spec.items, item, [...path, index], w));
      // Items dropped with only a warning (e.g. an unknown event type) leave no hole once the list is valid.
      return w.errors === errorsBefore ? items.filter((item) => item !== undefined) : items;
    }
    case 'tagged':
      return checkTagged(spec, raw, path, w);
    case 'string': {
      if (typeof raw !== 'string') return typeError(w, path, raw, 'a string');
      if (spec.minLength !== undefined && raw.length < spec.minLength) {
        return invalid(w, path, 'min-length', spec.minLength === 1 ? 'must not be empty' : `must be at least ${spec.minLength} characters`, raw);
      }
      if (spec.enum) {
        const match = spec.enum.find((option) => (spec.caseInsensitive ? option.toLowerCase() === raw.toLowerCase() : option === raw));
        if (match === undefined) return invalid(w, path, 'enum', `must be one of: ${spec.enum.join(', ')}${hint(raw, spec.enum)}`, raw);
        return match;
      }
      if (spec.pattern && !spec.pattern.test(raw)) return invalid(w, path, 'pattern', spec.patternMessage ?? `must match ${spec.pattern}`, raw);
      return raw;
    }
    case 'integer':
    case 'number': {
      const integer = spec.kind === 'integer';
      if (typeof raw !== 'number' || !Number.isFinite(raw) || (integer && !Number.isInteger(raw))) {
        return typeError(w, path, raw, integer ? 'an integer' : 'a number');
      }
      if (spec.kind === 'integer' && spec.enum && !spec.enum.includes(raw)) {
        return invalid(w, path, 'enum', spec.enum.length === 1 ? `must be ${spec.enum[0]}` : `must be one of: ${spec.enum.join(', ')}`, raw);
      }
      return checkBounds(w, path, raw, spec.min, spec.max, String);
    }
    case 'boolean': {
      if (typeof raw === 'boolean') return raw;
      if (spec.acceptStrings && typeof raw === 'string' && /^(true|false)$/i.test(raw)) return raw.toLowerCase() === 'true';
      return typeError(w, path, raw, spec.acceptStrings ? 'a boolean (or "true"/"false")' : 'a boolean');
    }
    case 'duration': {
      // Go reads a bare 0 as zero; any other number lacks its unit. Zero still has to meet the bounds.
      if (raw === 0) return checkBounds(w, path, 0, spec.min, spec.max, formatDuration, raw);
      if (typeof raw !== 'string') return typeError(w, path, raw, 'a duration such as 30s');
      const ms = parseGoDuration(raw);
      if (ms === undefined) return invalid(w, path, 'duration', `"${raw}" is not a duration; use Go syntax such as 500ms, 30s, 1m30s, 2h`, raw);
      return checkBounds(w, path, ms, spec.min, spec.max, formatDuration, raw);
    }
    case 'address':
      if (typeof raw !== 'string') return typeError(w, path, raw, 'an address such as tls:127.0.0.1:6262');
      return parsed(w, path, raw, parseAddress(raw, spec.protocols));
    case 'hostPort':
      if (typeof raw !== 'string') return typeError(w, path, raw, 'an address such as 127.0.0.1:1280');
      return parsed(w, path, raw, parseHostPort(raw));
    case 'path':
      if (typeof raw !== 'string') return typeError(w, path, raw, 'a path');
      if (raw === '') return invalid(w, path, 'path', 'must not be empty', raw);
      return resolvePath(w.baseDir, raw);
    case 'any':
      return raw;
  }
}

function checkObject(spec: Extract<Spec, { kind: 'object' }>, raw: unknown, path: KeyPath, w: Walker): unknown {
  if (!isMap(raw)) return typeError(w, path, raw, 'a map', spec.label);
  const present = (key: string): boolean => raw[key] !== null && raw[key] !== undefined;
  const values = new Map<string, unknown>();
  const others: Record<string, unknown> = {};

  // Keys in the order the file has them, so problems without a line still read top to bottom.
  for (const key of Object.keys(raw)) {
    const name = Object.hasOwn(spec.fields, key) ? key : Object.hasOwn(spec.aliases, key) ? spec.aliases[key]! : undefined;
    const field = name === undefined ? undefined : spec.fields[name];
    if (name === undefined || field === undefined) {
      const known = [...Object.keys(spec.fields), ...Object.keys(spec.aliases)];
      if (spec.otherKeys === undefined) {
        report(w, [...path, key], spec.unknownKeys ?? w.unknownKeys, 'unknown-key', `unknown key "${key}"${hint(key, known)}`);
        continue;
      }
      const suggestion = hint(key, known);
      if (suggestion !== '') report(w, [...path, key], 'warning', 'unknown-key', `unknown key "${key}"${suggestion}; kept as an option`);
      if (present(key)) {
        const value = walk(spec.otherKeys, raw[key], [...path, key], w);
        if (value !== undefined) others[key] = value;
      }
    } else if (name !== key && Object.hasOwn(raw, name)) {
      report(w, [...path, key], 'error', 'alias-conflict', `"${key}" is another name for "${name}"; set only one of them`);
    } else if (present(key)) {
      // The key as written is the path, so lines and messages match the file even when an alias was used.
      values.set(name, walk(field, raw[key], [...path, key], w));
    }
  }

  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(spec.fields)) {
    if (!values.has(name)) {
      const written = [name, ...Object.keys(spec.aliases).filter((alias) => spec.aliases[alias] === name)].find((key) => Object.hasOwn(raw, key)) ?? name;
      if (field.modifiers.defaultInput !== undefined) {
        values.set(name, walk(field, field.modifiers.defaultInput, [...path, written], w));
      } else if (field.modifiers.required) {
        const why = field.modifiers.description ? ` (${field.modifiers.description})` : '';
        report(w, [...path, written], 'error', 'required', `is required${why}`);
      }
    }
    const value = values.get(name);
    if (value !== undefined) out[name] = value;
  }
  return { ...out, ...others };
}

function checkTagged(spec: Extract<Spec, { kind: 'tagged' }>, raw: unknown, path: KeyPath, w: Walker): unknown {
  if (!isMap(raw)) return typeError(w, path, raw, 'a map', spec.label);
  const tag = raw[spec.tag];
  const tagPath = [...path, spec.tag];
  const options = Object.keys(spec.variants);
  if (tag === undefined || tag === null) return invalid(w, tagPath, 'required', `is required (one of: ${options.join(', ')})`);
  if (typeof tag !== 'string') return typeError(w, tagPath, tag, 'a string');
  const name = Object.hasOwn(spec.aliases, tag) ? spec.aliases[tag]! : tag;
  const variant = Object.hasOwn(spec.variants, name) ? spec.variants[name] : undefined;
  if (variant === undefined) {
    const what = spec.label ? `${spec.label} ${spec.tag}` : spec.tag;
    report(w, tagPath, spec.unknownTag, 'unknown-type', `unknown ${what} "${tag}"${hint(tag, options)}; known: ${options.join(', ')}${spec.unknownTag === 'warning' ? ' (ignored)' : ''}`, tag);
    return undefined;
  }
  const rest = Object.fromEntries(Object.entries(raw).filter(([key]) => key !== spec.tag));
  const value = walk(variant, rest, path, w);
  return value === undefined ? undefined : { [spec.tag]: name, ...(value as object) };
}

function checkBounds(w: Walker, path: KeyPath, value: number, min: number | undefined, max: number | undefined, show: (n: number) => string, raw: unknown = value): number | undefined {
  if (min !== undefined && value < min) return invalid(w, path, 'min', `must be at least ${show(min)}`, raw);
  if (max !== undefined && value > max) return invalid(w, path, 'max', `must be at most ${show(max)}`, raw);
  return value;
}

function parsed<T>(w: Walker, path: KeyPath, raw: string, result: ParseResult<T>): T | undefined {
  return result.ok ? result.value : invalid(w, path, 'address', `"${raw}": ${result.message}`, raw);
}

function invalid(w: Walker, path: KeyPath, rule: string, message: string, raw?: unknown): undefined {
  report(w, path, 'error', rule, message, raw);
  return undefined;
}

function typeError(w: Walker, path: KeyPath, raw: unknown, expected: string, label?: string): undefined {
  const last: PathSegment | undefined = path[path.length - 1];
  if (label !== undefined && expected === 'a map' && typeof last === 'number') {
    return invalid(w, path, 'type', `${label} at index ${last} is not a map`, raw);
  }
  return invalid(w, path, 'type', `must be ${expected}, got ${describeValue(raw)}`, raw);
}

function describeValue(raw: unknown): string {
  if (raw === null || raw === undefined) return 'nothing';
  if (Array.isArray(raw)) return 'a list';
  if (isMap(raw)) return 'a map';
  if (typeof raw === 'string') return `string ${JSON.stringify(raw)}`;
  return `${typeof raw} ${String(raw)}`;
}

function hint(text: string, candidates: readonly string[]): string {
  const suggestion = suggestKey(text, candidates);
  return suggestion === undefined ? '' : ` (did you mean "${suggestion}"?)`;
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
