// Well-formed request bodies built from an operation's body schema in the Edge API spec (FieldShape), as a client
// generated from it would send them: every required property filled with a value of its type (the first enum value,
// a number within its bounds, a date-time an hour ahead), nested objects likewise. A property whose value must mean
// something to the controller (an id of another entity, a certificate, a password) is taken from `hints`, by name,
// wherever the schema declares it, required or not; `extra` adds top-level properties the schema does not declare. Unique names keep two creates from colliding.
import type { FieldShape } from './edge-api-schemas.ts';

export type BodyHints = Readonly<Record<string, unknown>>;

let counter = 0;

export function sampleBody(shape: FieldShape | undefined, hints: BodyHints = {}, extra: Record<string, unknown> = {}): unknown {
  if (!shape) return undefined;
  const value = sampleValue(shape, 'body', hints, 0);
  return shape.kind === 'object' && value && typeof value === 'object' ? { ...(value as object), ...extra } : value;
}

function sampleValue(shape: FieldShape, name: string, hints: BodyHints, depth: number): unknown {
  if (name in hints) return hints[name];
  switch (shape.kind) {
    case 'string':
      if (shape.enum && shape.enum.length > 0) return shape.enum[0];
      if (shape.format === 'date-time') return new Date(Date.now() + 3_600_000).toISOString();
      return name === 'name' || name === 'username' ? `conform-${process.pid}-${++counter}` : `conform-${name}`;
    case 'integer':
    case 'number':
      return shape.minimum !== undefined && shape.minimum > 0 ? shape.minimum : 1;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      if (depth > 8) return {};
      // The required properties, and the optional ones a hint gives a value for.
      return Object.fromEntries(
        Object.keys(shape.properties)
          .filter((key) => shape.required.includes(key) || key in hints)
          .map((key) => [key, sampleValue(shape.properties[key]!, key, hints, depth + 1)]),
      );
    case 'any':
      return {};
  }
}
