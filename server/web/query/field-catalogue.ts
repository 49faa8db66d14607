// The fields a list endpoint lets clients filter and sort on, with how to read each from an entity.
// Readers normalise what the getter returns, so a wrong-typed or unparsable value counts as missing.

export type FieldType = 'string' | 'number' | 'boolean' | 'datetime' | 'string[]';

export type FieldDef<T> =
  | { readonly type: 'string'; get(entity: T): string | null | undefined }
  | { readonly type: 'number'; get(entity: T): number | null | undefined }
  | { readonly type: 'boolean'; get(entity: T): boolean | null | undefined }
  /** An ISO/RFC3339 string, a Date or epoch milliseconds. */
  | { readonly type: 'datetime'; get(entity: T): string | Date | number | null | undefined }
  | { readonly type: 'string[]'; get(entity: T): readonly string[] | null | undefined };

/** Field name (as written in filters and sort params) → definition. Key order is the `filterableFields` order. */
export type FieldCatalogue<T> = Readonly<Record<string, FieldDef<T>>>;

export type ScalarFieldType = Exclude<FieldType, 'string[]'>;

/** A scalar read from an entity: datetimes are epoch ms, so every kind compares with `<` and `===`. */
export type Scalar = string | number | boolean;

export function toInstant(value: unknown): number | undefined {
  let ms: number;
  if (typeof value === 'number') ms = value;
  else if (typeof value === 'string') ms = Date.parse(value);
  else if (value instanceof Date) ms = value.getTime();
  else return undefined;
  return Number.isFinite(ms) ? ms : undefined;
}

/** Normalises a raw scalar of the given type, or undefined when it is missing or of the wrong kind. */
export function readScalar(type: ScalarFieldType, value: unknown): Scalar | undefined {
  switch (type) {
    case 'string':
      return typeof value === 'string' ? value : undefined;
    case 'number':
      return typeof value === 'number' && !Number.isNaN(value) ? value : undefined;
    case 'boolean':
      return typeof value === 'boolean' ? value : undefined;
    case 'datetime':
      return toInstant(value);
  }
}

/** A missing or non-array list reads as empty; non-string members are skipped. */
export function readList(value: unknown): readonly string[] {
  if (!Array.isArray(value)) return [];
  return value.every((v) => typeof v === 'string') ? (value as string[]) : value.filter((v): v is string => typeof v === 'string');
}

export function fieldNames<T>(catalogue: FieldCatalogue<T>): string[] {
  return Object.keys(catalogue);
}

/** Looks a field up without tripping over inherited keys such as `constructor` or `toString`. */
export function findField<T>(catalogue: FieldCatalogue<T>, name: string): FieldDef<T> | undefined {
  return Object.prototype.hasOwnProperty.call(catalogue, name) ? catalogue[name] : undefined;
}

/** Human-readable type for error messages. */
export function describeType(type: FieldType): string {
  return type === 'string[]' ? 'a list of strings' : `a ${type}`;
}
