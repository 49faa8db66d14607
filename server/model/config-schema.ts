// Config data checked against its type's JSON schema (draft-07, as the real controller's validator reads it). A
// failure names the field by its path inside the request body (`data.port`, `data.portRanges.0.low`), so the API
// can answer COULD_NOT_VALIDATE pointing at it. Pure and deterministic: the apply checks again in log order.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { RegExpEngine } from 'ajv/dist/types/index.js';
import { isIPv4, isIPv6 } from 'node:net';
import { RE2JS } from 're2js';

export interface SchemaProblem {
  readonly field: string;
  readonly reason: string;
  readonly value?: unknown;
}

const hostnamePattern = /^(?=.{1,253}\.?$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[-0-9a-z]{0,61}[0-9a-z])?)*\.?$/i;

/**
 * `pattern` and `patternProperties` run on RE2, not on JavaScript's backtracking RegExp: an operator's schema is
 * checked in every controller's apply, and a backtracking `^(a+)+$` over a 30-character string holds the event loop
 * for minutes. RE2 runs in time linear in the text, and it is the syntax the real controller's schemas are written in
 * (Go's regexp): lookarounds and backreferences are refused when the config type is created.
 */
const re2Engine: RegExpEngine = Object.assign(
  (pattern: string) => {
    const compiled = RE2JS.compile(pattern);
    // Ajv keys compiled patterns by toString(): each must name its own pattern, or all would share the first.
    return { test: (text: string) => compiled.test(text), toString: () => `re2:${pattern}` };
  },
  { code: 'require("re2js").RE2JS.compile' },
);

// Operator schemas come from anywhere: unknown keywords and formats are ignored (as the real controller's validator
// ignores them), schemas with an `$id` are not registered (two types may share one), nothing is logged.
const ajv = new Ajv({
  code: { regExp: re2Engine },
  strict: false,
  allErrors: false,
  logger: false,
  addUsedSchema: false,
  formats: {
    // Intercept and dial addresses: hostnames, IPs, CIDRs and wildcards all pass, as the schemas' own note says.
    'idn-hostname': true,
    hostname: hostnamePattern,
    ipv4: (value: string) => isIPv4(value),
    ipv6: (value: string) => isIPv6(value),
  },
});

/** Compiled validators by schema text; schemas change rarely, so a small bound is plenty. Ajv keeps what it compiled
 * by schema object too, so an evicted (or failed) schema is removed from it as well. */
const compiled = new Map<string, { validate: ValidateFunction; schema: Record<string, unknown> }>();
const maxCompiled = 256;

/** The real controller's validator reads drafts 4 to 7 alike: a `$schema` naming one of them is not held against a
 * schema (this validator knows draft-07 only, whose rules cover what config schemas use). */
function readable(schema: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const meta = schema.$schema;
  if (typeof meta !== 'string' || !/^https?:\/\/json-schema\.org\/draft-0[4-7]\/schema#?$/.test(meta)) return schema as Record<string, unknown>;
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}

function validatorFor(schema: Readonly<Record<string, unknown>>): ValidateFunction {
  const key = JSON.stringify(schema);
  const known = compiled.get(key);
  if (known) return known.validate;
  // A private copy: the caller's object may be a stored row, and Ajv remembers the object it compiled.
  const copy = readable(JSON.parse(key) as Record<string, unknown>);
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(copy);
  } catch (error) {
    ajv.removeSchema(copy);
    throw error;
  }
  if (compiled.size >= maxCompiled) {
    const [oldest, entry] = compiled.entries().next().value!;
    compiled.delete(oldest);
    ajv.removeSchema(entry.schema);
  }
  compiled.set(key, { validate, schema: copy });
  return validate;
}

/** Why `schema` cannot be a config type's schema, or undefined when it can. */
export function schemaProblem(schema: Readonly<Record<string, unknown>>): SchemaProblem | undefined {
  try {
    if (!ajv.validateSchema(readable(schema))) {
      const error = ajv.errors?.[0];
      const path = error ? pathOf('schema', error.instancePath) : 'schema';
      return { field: path, reason: `schema is not a valid JSON schema: ${path} ${error?.message ?? 'is invalid'}` };
    }
    validatorFor(schema);
    return undefined;
  } catch (error) {
    return { field: 'schema', reason: `schema is not a valid JSON schema: ${error instanceof Error ? error.message : String(error)}`.slice(0, 500) };
  }
}

/** The first way `data` breaks `schema`, named by its path under `data`; undefined when it conforms. */
export function configDataProblem(schema: Readonly<Record<string, unknown>>, data: unknown): SchemaProblem | undefined {
  let validate: ValidateFunction;
  try {
    validate = validatorFor(schema);
  } catch (error) {
    return { field: 'configTypeId', reason: `the config type's schema cannot be used: ${error instanceof Error ? error.message : String(error)}`.slice(0, 500) };
  }
  if (validate(data)) return undefined;
  return problemOf(validate.errors?.[0], data);
}

function problemOf(error: ErrorObject | undefined, data: unknown): SchemaProblem {
  if (!error) return { field: 'data', reason: 'data does not match the config type schema' };
  const at = pathOf('data', error.instancePath);
  if (error.keyword === 'required') {
    const field = `${at}.${(error.params as { missingProperty: string }).missingProperty}`;
    return { field, reason: `${field} is required` };
  }
  if (error.keyword === 'additionalProperties') {
    const field = `${at}.${(error.params as { additionalProperty: string }).additionalProperty}`;
    return { field, reason: `${field} is not allowed by the config type schema` };
  }
  const value = valueAt(data, error.instancePath);
  const shown = value === null || typeof value !== 'object' ? value : undefined;
  let reason = `${at} ${error.message ?? 'is invalid'}`;
  if (error.keyword === 'enum') reason += `: ${JSON.stringify((error.params as { allowedValues: unknown[] }).allowedValues)}`;
  return shown === undefined ? { field: at, reason } : { field: at, reason, value: shown };
}

function pathOf(root: string, pointer: string): string {
  const segments = pointer.split('/').slice(1).map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  return [root, ...segments].join('.');
}

function valueAt(data: unknown, pointer: string): unknown {
  let current: unknown = data;
  for (const segment of pointer.split('/').slice(1)) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[segment.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return current;
}
