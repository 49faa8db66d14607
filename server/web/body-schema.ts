// Request bodies are checked against JSON schemas (ajv) before anything else happens. Unknown properties are
// ignored, as the real controller's decoder ignores them; the first failure names its field in the error cause,
// with the offending value unless the field holds a secret (secret-fields.ts).
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { EdgeError } from '../edge/edge-error.ts';
import { isSecretField } from './secret-fields.ts';

const ajv = new Ajv({ allErrors: false, strict: true, coerceTypes: false, useDefaults: false });

export type JsonSchema = Record<string, unknown>;

export interface BodyValidator<T> {
  (body: unknown): T;
}

/** Compiles a schema once; the returned function throws COULD_NOT_VALIDATE with the failing field. */
export function bodyValidator<T>(schema: JsonSchema): BodyValidator<T> {
  const validate: ValidateFunction = ajv.compile(schema);
  return (body: unknown): T => {
    if (validate(body)) return body as T;
    throw toEdgeError(validate.errors?.[0], body);
  };
}

function toEdgeError(error: ErrorObject | undefined, body: unknown): EdgeError {
  if (!error) return EdgeError.validation('(root)', 'invalid request body');
  const segments = error.instancePath.split('/').slice(1).map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') segments.push(String((error.params as { missingProperty: string }).missingProperty));
  const field = segments.length === 0 ? '(root)' : segments.join('.');
  const value = error.keyword === 'required' || isSecretField(field) ? undefined : valueAt(body, error.instancePath);
  const reason = error.keyword === 'required' ? `${field} in body is required` : `${field} ${error.message ?? 'is invalid'}`;
  return EdgeError.validation(field, reason, value);
}

function valueAt(body: unknown, pointer: string): unknown {
  let current: unknown = body;
  for (const segment of pointer.split('/').slice(1)) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current === undefined || (typeof current === 'object' && current !== null) ? undefined : current;
}

export const schemaParts = {
  tags: { type: ['object', 'null'] },
  stringList: { type: ['array', 'null'], items: { type: 'string', maxLength: 1024 }, maxItems: 1000 },
  nullableString: { type: ['string', 'null'], maxLength: 1024 },
} as const;
