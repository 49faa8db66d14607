// What a client generated from the Edge APIs' OpenAPI 2.0 files (go-swagger, as the OpenZiti SDKs and CLI are) demands
// of a response body, checked with ajv against the bundled management.yml and client.yml (edge-api-spec/): the
// response schema of the operation and status, with its required properties, types, enums, formats (date-time as
// strfmt parses it, int64, uri, ...), `x-nullable` (null is a value only where the spec says so) and the
// `discriminator` of polymorphic types (posture checks dispatch on typeId to their subtype). Only what go-swagger
// generates code for is checked: a `required` name that no property of its schema declares is left out, as the
// generated model has no field for it, and an `object` that declares nothing inside takes any value.
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { parse } from 'yaml';

export type EdgeApi = 'management' | 'client';

/** A request body's shape as the spec gives it, references and allOf resolved: what a request generator fills in. */
export type FieldShape =
  | { readonly kind: 'string'; readonly enum?: readonly string[]; readonly format?: string }
  | { readonly kind: 'integer' | 'number'; readonly minimum?: number; readonly maximum?: number }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'array'; readonly items: FieldShape }
  | { readonly kind: 'object'; readonly properties: Readonly<Record<string, FieldShape>>; readonly required: readonly string[] }
  | { readonly kind: 'any' };

type Schema = Record<string, unknown>;

interface Operation {
  readonly responses?: Record<string, Schema>;
  readonly parameters?: ReadonlyArray<{ readonly in: string; readonly schema?: Schema }>;
}

interface Spec {
  readonly basePath: string;
  readonly paths: Record<string, Record<string, Operation>>;
  readonly responses?: Record<string, Schema>;
  readonly definitions: Record<string, Schema>;
}

const specFile = (api: EdgeApi) => new URL(`./edge-api-spec/${api}.yml`, import.meta.url);

// The files write some numbers as `!!float 65535`, which the YAML 1.2 core schema leaves unresolved.
const floatTag = { tag: 'tag:yaml.org,2002:float', resolve: (text: string) => Number(text) };

/** Keywords carried over as they are; the rest (descriptions, examples, x-* extensions, readOnly) do not validate. */
const plainKeywords = ['type', 'enum', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'pattern', 'minItems', 'maxItems', 'uniqueItems'];

/** RFC 3339 as go-openapi/strfmt's DateTime reads it: date, `T`, time with optional fraction, `Z` or an offset. */
const dateTime = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?(Z|[+-]([01]\d|2[0-3]):?[0-5]\d)$/;
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function addFormats(ajv: Ajv): void {
  ajv.addFormat('date-time', { type: 'string', validate: (text: string) => dateTime.test(text) && !Number.isNaN(Date.parse(text)) });
  ajv.addFormat('uuid', { type: 'string', validate: (text: string) => uuid.test(text) });
  // Go's url.Parse takes relative references (the `./identities/<id>` of _links) and refuses control characters
  // and broken percent escapes.
  ajv.addFormat('uri', { type: 'string', validate: (text: string) => !/[\x00-\x1f\x7f]/.test(text) && !/%(?![0-9a-fA-F]{2})/.test(text) });
  // strfmt registers no `url` format: the generated code treats it as a plain string.
  ajv.addFormat('url', { type: 'string', validate: () => true });
  ajv.addFormat('byte', { type: 'string', validate: (text: string) => /^[A-Za-z0-9+/]*={0,2}$/.test(text) && text.length % 4 === 0 });
  ajv.addFormat('int64', { type: 'number', validate: (value: number) => Number.isSafeInteger(value) });
  ajv.addFormat('int32', { type: 'number', validate: (value: number) => Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31 });
  ajv.addFormat('double', { type: 'number', validate: () => true });
  ajv.addFormat('float', { type: 'number', validate: () => true });
}

const formats = new Set(['date-time', 'uuid', 'uri', 'url', 'byte', 'int64', 'int32', 'double', 'float']);

export class EdgeApiSchemas {
  private readonly ajv = new Ajv({ strict: false, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly templates: Array<{ template: string; regex: RegExp; params: number }>;

  private constructor(
    readonly api: EdgeApi,
    private readonly spec: Spec,
  ) {
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: this.schemaId, definitions: this.convertDefinitions() });
    // Literal segments win over {params}, as the generated server's router matches them.
    this.templates = Object.keys(spec.paths)
      .map((template) => ({ template, regex: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`), params: (template.match(/\{/g) ?? []).length }))
      .sort((a, b) => a.params - b.params);
  }

  static load(api: EdgeApi): EdgeApiSchemas {
    const spec = parse(readFileSync(specFile(api), 'utf8'), { customTags: (tags) => [...tags, floatTag] }) as Spec;
    return new EdgeApiSchemas(api, spec);
  }

  get basePath(): string {
    return this.spec.basePath;
  }

  private get schemaId(): string {
    return `edge-${this.api}`;
  }

  /** The spec's path template a request path (under the base path, no query) is served by. */
  templateOf(path: string): string | undefined {
    return this.templates.find((candidate) => candidate.regex.test(path))?.template;
  }

  /**
   * What a generated client would refuse in one response: `[]` when the body is what the spec's response schema for
   * that operation and status says; otherwise one line per problem, naming the JSON pointer into the body.
   */
  problems(method: string, path: string, status: number, body: unknown): string[] {
    const template = this.templateOf(path);
    if (!template) return [`${method} ${path}: no path of the ${this.api} API spec matches`];
    const operation = this.spec.paths[template]![method.toLowerCase()];
    if (!operation) return [`${method} ${template}: the spec has no such operation`];
    let response = operation.responses?.[String(status)];
    if (!response) return [`${method} ${template}: the spec documents no ${status} response`];
    if (typeof response.$ref === 'string') response = this.spec.responses?.[response.$ref.replace('#/responses/', '')] ?? {};
    // No schema: a body that is not JSON (the MFA QR code's PNG), which the generated client does not read as a model.
    if (!response.schema) return [];
    const validate = this.validatorFor(`${method} ${template} ${status}`, response.schema as Schema);
    if (validate(body)) return [];
    return (validate.errors ?? []).map((error) => `${method} ${template} ${status}: ${describe(error)}`);
  }

  /** Every operation of the spec as `{method, template, statuses}`: what a conformance walk must cover. */
  operations(): Array<{ readonly method: string; readonly template: string; readonly statuses: readonly number[] }> {
    const methods = new Set(['get', 'put', 'post', 'patch', 'delete', 'head', 'options']);
    return Object.entries(this.spec.paths).flatMap(([template, operations]) =>
      Object.entries(operations)
        .filter(([method]) => methods.has(method))
        .map(([method, operation]) => ({ method: method.toUpperCase(), template, statuses: Object.keys(operation.responses ?? {}).map(Number) })),
    );
  }

  /** The shape of an operation's JSON body (its `in: body` parameter), or undefined when it takes none. */
  requestBody(method: string, path: string): FieldShape | undefined {
    const template = this.templateOf(path);
    const operation = template ? this.spec.paths[template]?.[method.toLowerCase()] : undefined;
    const body = operation?.parameters?.find((parameter) => parameter.in === 'body');
    return body?.schema ? this.shapeOf(body.schema, 0) : undefined;
  }

  private shapeOf(node: Schema, depth: number): FieldShape {
    if (depth > 12) return { kind: 'any' };
    if (typeof node.$ref === 'string') return this.shapeOf(this.spec.definitions[node.$ref.replace('#/definitions/', '')] ?? {}, depth + 1);
    if (Array.isArray(node.allOf)) {
      const parts = (node.allOf as Schema[]).map((part) => this.shapeOf(part, depth + 1));
      const own = node.properties ? this.shapeOf({ ...node, allOf: undefined }, depth + 1) : undefined;
      const objects = [...parts, ...(own ? [own] : [])].filter((part): part is Extract<FieldShape, { kind: 'object' }> => part.kind === 'object');
      if (objects.length === 0) return parts[0] ?? { kind: 'any' };
      return { kind: 'object', properties: Object.assign({}, ...objects.map((part) => part.properties)), required: objects.flatMap((part) => part.required) };
    }
    switch (node.type) {
      case 'string':
        return { kind: 'string', ...(Array.isArray(node.enum) ? { enum: node.enum as string[] } : {}), ...(typeof node.format === 'string' ? { format: node.format } : {}) };
      case 'integer':
      case 'number':
        return { kind: node.type, ...(typeof node.minimum === 'number' ? { minimum: node.minimum } : {}), ...(typeof node.maximum === 'number' ? { maximum: node.maximum } : {}) };
      case 'boolean':
        return { kind: 'boolean' };
      case 'array':
        return { kind: 'array', items: node.items ? this.shapeOf(node.items as Schema, depth + 1) : { kind: 'any' } };
      default: {
        if (!node.properties) return node.type === 'object' || node.type === undefined ? { kind: 'object', properties: {}, required: [] } : { kind: 'any' };
        const properties = Object.fromEntries(Object.entries(node.properties as Record<string, Schema>).map(([key, value]) => [key, this.shapeOf(value, depth + 1)]));
        return { kind: 'object', properties, required: ((node.required as string[] | undefined) ?? []).filter((name) => name in properties) };
      }
    }
  }

  private validatorFor(key: string, schema: Schema): ValidateFunction {
    let validate = this.compiled.get(key);
    if (!validate) this.compiled.set(key, (validate = this.ajv.compile(this.convert(schema))));
    return validate;
  }

  /** Every definition as JSON Schema; a polymorphic one checks its base, then the subtype its discriminator names. */
  private convertDefinitions(): Record<string, Schema> {
    const definitions = this.spec.definitions;
    const converted: Record<string, Schema> = {};
    const bases = new Map<string, { property: string; subtypes: Array<[string, string]> }>();
    for (const [name, definition] of Object.entries(definitions)) {
      if (typeof definition.discriminator === 'string') bases.set(name, { property: definition.discriminator, subtypes: [] });
    }
    for (const [name, definition] of Object.entries(definitions)) {
      for (const part of (definition.allOf as Schema[] | undefined) ?? []) {
        const base = typeof part.$ref === 'string' ? bases.get(part.$ref.replace('#/definitions/', '')) : undefined;
        if (base) base.subtypes.push([String(definition['x-class'] ?? name), name]);
      }
    }
    for (const [name, definition] of Object.entries(definitions)) {
      // A subtype's own reference to its base is to the base's fields, not back to the dispatch.
      const ownBases = new Set(((definition.allOf as Schema[] | undefined) ?? []).map((part) => String(part.$ref ?? '').replace('#/definitions/', '')).filter((base) => bases.has(base)));
      converted[name] = this.convert(definition, ownBases);
    }
    for (const [name, { property, subtypes }] of bases) {
      converted[`${name}__base`] = converted[name]!;
      let dispatch: Schema = { required: [property], properties: { [property]: { enum: subtypes.map(([value]) => value) } } };
      for (const [value, subtype] of subtypes.reverse()) {
        dispatch = { if: { required: [property], properties: { [property]: { const: value } } }, then: { $ref: this.ref(subtype) }, else: dispatch };
      }
      converted[name] = { allOf: [{ $ref: this.ref(`${name}__base`) }, dispatch] };
    }
    return converted;
  }

  private ref(definition: string): string {
    return `${this.schemaId}#/definitions/${definition}`;
  }

  private convert(node: Schema, toBase: ReadonlySet<string> = new Set()): Schema {
    const nullable = node['x-nullable'] === true;
    if (typeof node.$ref === 'string') {
      const name = node.$ref.replace('#/definitions/', '');
      const target = { $ref: this.ref(toBase.has(name) ? `${name}__base` : name) };
      return nullable ? { anyOf: [{ type: 'null' }, target] } : target;
    }
    // go-swagger makes an `object` with nothing declared inside an interface{}: any JSON value at all (the values
    // of tags and appData are such objects).
    if (node.type === 'object' && !node.properties && node.additionalProperties === undefined && !node.allOf) return {};
    const out: Schema = {};
    for (const keyword of plainKeywords) if (node[keyword] !== undefined) out[keyword] = node[keyword];
    if (out.type === 'file') delete out.type;
    if (typeof node.format === 'string' && formats.has(node.format)) out.format = node.format;
    if (node.properties) out.properties = Object.fromEntries(Object.entries(node.properties as Record<string, Schema>).map(([key, value]) => [key, this.convert(value)]));
    if (node.items) out.items = this.convert(node.items as Schema);
    if (node.additionalProperties !== undefined) out.additionalProperties = typeof node.additionalProperties === 'boolean' ? node.additionalProperties : this.convert(node.additionalProperties as Schema);
    if (Array.isArray(node.allOf)) out.allOf = (node.allOf as Schema[]).map((part) => this.convert(part, toBase));
    if (Array.isArray(node.required)) {
      const declared = new Set(Object.keys((node.properties as Schema | undefined) ?? {}));
      const required = (node.required as string[]).filter((name) => declared.has(name));
      if (required.length > 0) out.required = required;
    }
    if (!nullable) return out;
    if (typeof out.type === 'string') {
      out.type = [out.type, 'null'];
      if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
      return out;
    }
    return { anyOf: [{ type: 'null' }, out] };
  }
}

function describe(error: ErrorObject): string {
  const where = error.instancePath === '' ? '(body)' : error.instancePath;
  const params = error.keyword === 'enum' ? ` (${JSON.stringify((error.params as { allowedValues: unknown[] }).allowedValues)})` : error.keyword === 'format' ? ` (${(error.params as { format: string }).format})` : '';
  return `${where} ${error.message ?? error.keyword}${params}`;
}
