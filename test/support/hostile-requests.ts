// Malformed and hostile requests for every route of the Edge APIs, generated from a seed: bodies built from each
// operation's schema in the spec with wrong types and hostile values put in at every field in turn, valid-but-hostile
// JSON (deep, wide, huge strings, __proto__/constructor/prototype keys, lone surrogates and other unicode oddities),
// truncated JSON, text that is not JSON at all (PEM with nested-to-death DER among it), wrong and odd content types,
// bad filters, sorts, limits and offsets, bad and huge ids, other methods, and no session, a bad one or an admin's.
// The same seed and context give the same requests.
import type { RouteEntry } from '../../server/web/api-router.ts';
import type { EdgeApi, EdgeApiSchemas, FieldShape } from './edge-api-schemas.ts';

export interface HostileRequest {
  readonly method: string;
  /** Path and query, percent-encoded as sent. */
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string | Buffer;
  /** What kind of request this is, for the summary. */
  readonly kind: string;
  readonly route: string;
}

/** Every value the sweep puts in a secret-bearing field (password, token, code, ...) starts with this: no answer may
 * ever contain it. */
export const secretMarker = 'sweep-secret-';
const secretName = /^(password|currentPassword|newPassword|token|code|secret|clientSecret)$/;

export interface SweepContext {
  readonly routes: readonly RouteEntry[];
  readonly schemas: Readonly<Record<EdgeApi, EdgeApiSchemas>>;
  /** Ids of entities made for the sweep, by collection; never the admin's own (a sweep must not lock itself out). */
  readonly ids: Readonly<Record<string, readonly string[]>>;
  /** zt-session tokens of admin sessions. */
  readonly adminTokens: readonly string[];
}

/** mulberry32: small, fast and good enough to pick from lists. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Big texts are made once and shared by every request that sends them. */
const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}{}${'}'.repeat(depth)}`;
const deepArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const big = {
  deepTags: `{"name":"sweep-deep","isAdmin":false,"tags":${deepObject(20_000)}}`,
  deepArray: `{"roleAttributes":${deepArray(50_000)}}`,
  unclosed: '['.repeat(200_000),
  // Keys of a few base-36 digits keep 100,000 of them under the 1 MiB body limit.
  wide: `{"tags":{${Array.from({ length: 100_000 }, (_, i) => `"${i.toString(36)}":0`).join(',')}}}`,
  wideArray: `[${Array.from({ length: 200_000 }, () => '0').join(',')}]`,
  hugeString: JSON.stringify({ name: 'x'.repeat(900_000), isAdmin: false }),
  oversize: JSON.stringify({ name: 'y'.repeat(1_200_000) }),
  // A certificate request whose DER is 60,000 SEQUENCEs of indefinite length, each inside the last.
  deepDerPem: pem('CERTIFICATE REQUEST', Buffer.from('3080'.repeat(60_000), 'hex')),
  deepDerCertificate: pem('CERTIFICATE', Buffer.concat([Buffer.from('3080'.repeat(30_000), 'hex'), Buffer.alloc(60_000)])),
};

function pem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/** What a body-taking route is sent in turn: nested past any stack, wider than any request needs, over the size limit. */
const bigBodies: readonly string[] = [
  big.deepTags,
  big.deepArray,
  big.wide,
  big.unclosed,
  `{"appData":${deepObject(20_000)},"envInfo":${deepObject(5_000)},"primary":${deepArray(20_000)}}`,
  big.hugeString,
  big.wideArray,
  JSON.stringify({ certPem: big.deepDerCertificate, serverCertCsr: big.deepDerPem, certCsr: big.deepDerPem, clientCsr: big.deepDerPem, token: 'x' }),
  big.deepDerPem,
  big.oversize,
];

/** Placeholders swapped for raw JSON text after stringifying: numbers JSON.stringify cannot write, odd escapes. */
const raw: Readonly<Record<string, string>> = {
  '\u0001raw:1e400': '1e400',
  '\u0001raw:-1e400': '-1e400',
  '\u0001raw:-0': '-0',
  '\u0001raw:bigint': '123456789012345678901234567890',
  '\u0001raw:lone-high': '"\\ud800"',
  '\u0001raw:lone-low': '"x\\udfffy"',
  '\u0001raw:nul': '"a\\u0000b"',
  '\u0001raw:proto': '{"__proto__":{"isAdmin":true,"polluted":1}}',
  '\u0001raw:constructor': '{"constructor":{"prototype":{"polluted":1}}}',
};
const rawTokens = Object.keys(raw);

/** Values of every wrong type and a few hostile ones, put in place of a field's proper value. */
const wrongValues: readonly unknown[] = [
  null, true, false, 0, -1, 1.5, 1e308, -1e308, 2 ** 53 + 1, '', ' ', 'x'.repeat(5000), [], {}, [null], [[[[[]]]]], { a: { b: { c: {} } } },
  ['a', 1, null, {}], '\u202eevil', '💩'.repeat(200), 'ℌ𝔢𝔩𝔩𝔬', '\u0000', '\ufeffbom', '__proto__', 'constructor', 'prototype', '../../etc/passwd', '%00', '${jndi:x}',
  '<script>', 'null', 'true', '2026-13-45T99:99:99Z', '-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----', ...rawTokens,
];

const hostileJson: readonly string[] = [
  '{"__proto__":{"isAdmin":true},"name":"sweep-proto","isAdmin":false}',
  '{"constructor":{"prototype":{"isAdmin":true}},"prototype":{"x":1},"name":"sweep-ctor","isAdmin":false}',
  '{"name":"sweep-dup","name":"again","isAdmin":false,"isAdmin":true}',
  '{"name":"\\ud800\\udc00\\ud800","isAdmin":false}',
  '{"name":"\\udfff","isAdmin":false,"tags":{"\\ud800":"\\udbff"}}',
  '\ufeff{"name":"sweep-bom","isAdmin":false}',
  '{"name":"a\\u0000b","isAdmin":false}',
  '{"name":1e400,"isAdmin":false}',
  '{"limit":-0,"offset":123456789012345678901234567890}',
  '[]',
  '[{}]',
  '"just a string"',
  '12345',
  'null',
  'true',
  '{}',
  '{"":""}',
  '{"tags":{"":{"":{"":[]}}}}',
  `{"name":"${'\\u0041'.repeat(2000)}","isAdmin":false}`,
  `{"roleAttributes":[${Array.from({ length: 2000 }, (_, i) => `"#r${i}"`).join(',')}]}`,
  `{"tags":${deepObject(64)}}`,
  `{"tags":${deepObject(65)}}`,
  `{"appData":${deepArray(63)}}`,
];

const notJson: readonly (string | Buffer)[] = [
  'name=sweep&isAdmin=false',
  '<identity><name>x</name></identity>',
  '{name: "unquoted"}',
  "{'name': 'single'}",
  '{"name": "trailing",}',
  '{"name": NaN}',
  '{"a":1}{"b":2}',
  '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\nb\r\n--x--',
  Buffer.from([0xff, 0xfe, 0xfd, 0x00, 0x7b, 0x22, 0xc3, 0x28, 0x22, 0x7d]),
  Buffer.from('{"name":"\xc3\x28","isAdmin":false}', 'latin1'),
  Buffer.from([0xed, 0xa0, 0x80]),
  '-----BEGIN CERTIFICATE REQUEST-----\nbm90IGEgcmVxdWVzdA==\n-----END CERTIFICATE REQUEST-----\n',
  '-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n',
  '\u0000\u0001\u0002',
];

const contentTypes = [
  'application/json', 'application/json; charset=utf-8', 'application/json; charset=utf-16', 'application/merge-patch+json', 'application/vnd.api+json',
  'text/plain', 'application/x-pem-file', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/octet-stream',
  'application/jsonx', 'json', '*/*', 'application/json;;;', 'APPLICATION/JSON',
];

const badFilters = [
  '', 'name', 'name =', 'name = "', 'name = "x" and', '((((name = "x"', `${'('.repeat(500)}name = "x"${')'.repeat(500)}`, `${'not '.repeat(300)}true`,
  'unknownField = 1', 'name = 1', 'isAdmin contains "x"', 'name in []', `name in [${Array.from({ length: 500 }, (_, i) => `"n${i}"`).join(',')}]`,
  'createdAt > datetime(2026-02-30T00:00:00Z)', 'createdAt > datetime(', 'name = "\u0000"', 'name = "💩"', 'anyOf(name) = "x"', 'count(roleAttributes) > "x"',
  'true limit 99999999999999999999', 'true skip -5', 'sort by nothing', 'true sort by name desc, id asc limit none', 'name = "x" or "y"', '!', '\\', '"unterminated',
  'name contains "a" and name contains "b" or not (id = "x")', 'isEmpty(roleAttributes)', 'roleAttributes = null', 'name between 1 and "z"',
];
const badSorts = ['', 'name', 'name desc', 'nosuch', 'name sideways', 'name asc extra', ',,,', 'roleAttributes', 'name,'.repeat(200), 'NAME DESC', 'id asc, createdAt desc'];
const badNumbers = ['', '0', '-1', '-2', '1', '500', '501', '99999999999999999999', '1.5', 'abc', '0x10', '1e3', ' 5', '+5', '-0', 'NaN', 'Infinity', '١٢'];
const badIds = [
  'no-such-id', 'x'.repeat(4000), '%00', '..%2F..%2Fetc%2Fpasswd', '%2E%2E', '%E2%80%AE', '%F0%9F%92%A9', '%ZZ', '%ED%A0%80', '%C3%28', '__proto__', 'constructor',
  'prototype', "'%3B%20DROP", '1e400', '-1', '%20', '.', 'null', 'undefined', '%7B%7D',
];
const badTokens = ['wrong-token', '00000000-0000-0000-0000-000000000000', 'x'.repeat(4000), 'null', ' ', '"quoted"', 'Bearer abc', 'a,b,c', '\u00e9'];
const otherMethods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'TRACE'];

/** The collection a route's `:id` names (`/identities/:id` → identities). */
function collectionOf(path: string): string | undefined {
  return /\/([a-z-]+)\/:id/.exec(path)?.[1];
}

function apiOf(path: string, context: SweepContext): { api: EdgeApi; relative: string } | undefined {
  for (const api of ['management', 'client'] as const) {
    const base = context.schemas[api].basePath;
    if (path === base || path.startsWith(`${base}/`)) return { api, relative: path.slice(base.length) || '/' };
  }
  return undefined;
}

/** Every field of a shape as a path of keys, depth first, so mutations can walk through all of them. */
function fieldPaths(shape: FieldShape | undefined, prefix: readonly string[] = []): string[][] {
  if (!shape || shape.kind !== 'object') return [];
  return Object.entries(shape.properties).flatMap(([key, child]) => [[...prefix, key], ...(prefix.length < 4 ? fieldPaths(child, [...prefix, key]) : [])]);
}

export interface HostileSweep {
  readonly requests: readonly HostileRequest[];
  /** For each route whose body the spec describes, the fields no request gave a wrong value (none, when the sweep
   * is long enough: each route's wrong-type requests walk its fields in turn). */
  readonly fieldsMissed: ReadonlyMap<string, readonly string[]>;
}

export function hostileRequests(context: SweepContext, count: number, seed: number): HostileSweep {
  const rand = seededRandom(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const chance = (p: number) => rand() < p;
  const perRoute = new Map<string, number>();
  const mutations = new Map<string, { fields: string[][]; done: number }>();

  const sample = (shape: FieldShape | undefined, key: string, depth = 0): unknown => {
    if (!shape || depth > 6) return {};
    switch (shape.kind) {
      case 'string':
        if (shape.enum) return pick(shape.enum);
        if (shape.format === 'date-time') return pick(['2099-01-01T00:00:00.000Z', '2001-01-01T00:00:00Z']);
        if (shape.format === 'uri' || shape.format === 'url') return 'https://sweep.invalid/x';
        if (/pem$/i.test(key)) return pick([big.deepDerCertificate, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n', '']);
        if (/csr$/i.test(key)) return pick([big.deepDerPem, '']);
        if (secretName.test(key) && !shape.enum) return `${secretMarker}${key}-${Math.floor(rand() * 1e9).toString(36)}`;
        if (/id$/i.test(key)) return pick(Object.values(context.ids).flat().concat(['no-such-id']));
        return `sweep-${key}-${Math.floor(rand() * 1e9).toString(36)}`;
      case 'integer':
      case 'number':
        return Math.max(shape.minimum ?? 0, Math.min(shape.maximum ?? 1000, Math.floor(rand() * 100)));
      case 'boolean':
        return chance(0.5);
      case 'array':
        return chance(0.5) ? [] : [sample(shape.items, key, depth + 1)];
      case 'object': {
        const out: Record<string, unknown> = {};
        for (const [name, child] of Object.entries(shape.properties)) if (shape.required.includes(name) || chance(0.4)) out[name] = sample(child, name, depth + 1);
        return out;
      }
      default:
        return {};
    }
  };

  const mutate = (body: unknown, path: readonly string[], value: unknown): unknown => {
    if (path.length === 0) return value;
    const container = body !== null && typeof body === 'object' && !Array.isArray(body) ? { ...(body as Record<string, unknown>) } : {};
    container[path[0]!] = mutate(container[path[0]!], path.slice(1), value);
    return container;
  };

  const toText = (value: unknown): string => {
    let text = JSON.stringify(value) ?? 'null';
    for (const [token, replacement] of Object.entries(raw)) text = text.split(JSON.stringify(token)).join(replacement);
    return text;
  };

  const requests: HostileRequest[] = [];
  for (let i = 0; i < count; i++) {
    const route = context.routes[i % context.routes.length]!;
    const nth = perRoute.get(`${route.method} ${route.path}`) ?? 0;
    perRoute.set(`${route.method} ${route.path}`, nth + 1);
    const located = apiOf(route.path, context);
    const method = chance(0.1) ? pick(otherMethods) : route.method;

    // The path: a real entity of the sweep's, or an id no entity has.
    const collection = collectionOf(route.path);
    let path = route.path.replace(/:id/g, () => {
      const pool = collection ? context.ids[collection] ?? [] : [];
      return pool.length > 0 && chance(0.6) ? pick(pool) : pick(badIds);
    });
    if (chance(0.03)) path = pick([`${path}/extra`, `${path}//`, path.toUpperCase(), `${path}%2F`, `${path}/..`]);

    // Every route that takes a body is sent each big body in turn, as an admin, so each reaches the handler behind
    // the guard: the schedule, not chance, makes sure every write route meets the deep and the wide ones.
    const bodyRoute = route.method === 'POST' || route.method === 'PUT' || route.method === 'PATCH';
    if (bodyRoute && nth % 8 === 3) {
      const scheduled = bigBodies[Math.floor(nth / 8) % bigBodies.length]!;
      requests.push({ method: route.method, path, headers: { accept: 'application/json', 'content-type': 'application/json', 'zt-session': pick(context.adminTokens) }, body: scheduled, kind: 'big', route: `${route.method} ${route.path}` });
      continue;
    }

    // The query: list parameters good and bad, repeated ones, and the parameters some routes read.
    const query: string[] = [];
    if (chance(0.35)) query.push(`filter=${encodeURIComponent(pick(badFilters))}`);
    if (chance(0.2)) query.push(`sort=${encodeURIComponent(pick(badSorts))}`);
    if (chance(0.2)) query.push(`limit=${encodeURIComponent(pick(badNumbers))}`);
    if (chance(0.15)) query.push(`offset=${encodeURIComponent(pick(badNumbers))}`);
    if (chance(0.05)) query.push('limit=1&limit=2&filter=a&filter=b');
    if (route.path.endsWith('/authenticate')) query.push(`method=${encodeURIComponent(pick(['password', 'password', 'cert', 'ext-jwt', 'PASSWORD', '', 'x'.repeat(300), 'password&method=cert']))}`);
    if (route.path.includes('/enroll')) query.push(`token=${encodeURIComponent(pick(['', 'no-such-token', 'x'.repeat(3000), ...(context.ids.enrollmentTokens ?? [])]))}`);
    if (chance(0.03)) query.push(`${encodeURIComponent('__proto__[isAdmin]')}=true&constructor=1&%E2%80%AE=%ED%A0%80`);
    const fullPath = query.length > 0 ? `${path}?${query.join('&')}` : path;

    // Who asks: nobody, a bad session, or (half the time, so the handlers behind the guard are reached) an admin,
    // never ending the admin's own session.
    const headers: Record<string, string> = { accept: chance(0.05) ? pick(['application/x-pem-file', 'text/html', '*/*', 'image/png']) : 'application/json' };
    const who = (i >> 1) % 4;
    const endsOwnSession = route.path.endsWith('/current-api-session') && method === 'DELETE';
    if (who === 1 || (who >= 2 && endsOwnSession)) headers['zt-session'] = pick(badTokens);
    else if (who >= 2) headers['zt-session'] = pick(context.adminTokens);
    if (chance(0.03)) headers.authorization = `Bearer ${pick(['x', 'a.b.c', 'eyJhbGciOiJub25lIn0.e30.', 'x'.repeat(2000)])}`;
    if (chance(0.03)) headers['mfa-validation-code'] = pick(['', '000000', 'x'.repeat(500), '12345678901234567890']);

    // The body.
    let body: string | Buffer | undefined;
    let kind = 'no body';
    const shape = located ? context.schemas[located.api].requestBody(route.method, located.relative) : undefined;
    const fields = fieldPaths(shape);
    // A route the spec gives a body to gets one whatever its method (GET recovery-codes takes `{code}`).
    const wantsBody = method === 'POST' || method === 'PUT' || method === 'PATCH' || (method === route.method && fields.length > 0) || chance(0.05);
    if (wantsBody) {
      const roll = rand();
      const routeKey = `${route.method} ${route.path}`;
      if (!mutations.has(routeKey)) mutations.set(routeKey, { fields, done: 0 });
      const walk = mutations.get(routeKey)!;
      // Half of a body route's requests give one field after another a wrong value, as an admin so that the check
      // behind the guard sees it, until every field has had one (twice over).
      if (method === route.method && nth % 2 === 0 && walk.done < fields.length * 2 && !endsOwnSession) {
        const target = fields[walk.done % fields.length]!;
        walk.done++;
        headers['zt-session'] = pick(context.adminTokens);
        // A secret field is given a value too long for it, which a careless error would send back (the other
        // wrong types reach it through the random mutations below).
        const secret = secretName.test(target[target.length - 1]!);
        body = toText(mutate(sample(shape, 'body'), target, secret ? `${secretMarker}${'x'.repeat(120)}` : pick(wrongValues)));
        kind = 'wrong type';
      } else if (roll < 0.4) {
        // The operation's own schema, with one field after another given a wrong or hostile value.
        const base = sample(shape ?? { kind: 'object', properties: { name: { kind: 'string' }, token: { kind: 'string' }, password: { kind: 'string' }, code: { kind: 'string' } }, required: [] }, 'body');
        const target = fields.length > 0 ? pick(fields) : [pick(['name', 'token', 'password', 'code', 'clientCsr'])];
        body = toText(mutate(base, target, pick(wrongValues)));
        kind = 'wrong type';
      } else if (roll < 0.52) {
        body = pick(hostileJson);
        kind = 'hostile json';
      } else if (roll < 0.54) {
        body = pick(bigBodies);
        kind = 'big';
      } else if (roll < 0.68) {
        const text = toText(sample(shape, 'body'));
        body = text.slice(0, Math.floor(rand() * text.length));
        kind = 'truncated';
      } else if (roll < 0.8) {
        body = pick(notJson);
        kind = 'not json';
      } else if (roll < 0.85) {
        body = '';
        kind = 'empty';
      } else {
        body = toText(sample(shape, 'body'));
        kind = 'schema sample';
      }
      headers['content-type'] = chance(0.8) ? 'application/json' : pick(contentTypes);
    }
    requests.push({ method, path: fullPath, headers, ...(body === undefined ? {} : { body }), kind, route: `${route.method} ${route.path}` });
  }
  const fieldsMissed = new Map<string, string[]>();
  for (const [routeKey, walk] of mutations) {
    if (walk.done < walk.fields.length) fieldsMissed.set(routeKey, walk.fields.slice(walk.done).map((path) => path.join('.')));
  }
  return { requests, fieldsMissed };
}
