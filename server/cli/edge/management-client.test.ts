import assert from 'node:assert/strict';
import { test } from 'node:test';
import { kindNamed } from './edge-entities.ts';
import { ApiFailure, EdgeFailure } from './edge-errors.ts';
import { resolveEntityId } from './entity-lookup.ts';
import { connectionProblem, hasPagingClause, ManagementClient, zitiQlString, type HttpAnswer, type HttpRequest, type Transport } from './management-client.ts';

const base = 'https://127.0.0.1:1280/edge/management/v1';

/** A controller that serves `rows` as a list the way the API pages it, and records every request. */
function fakeList(rows: Record<string, unknown>[]): { transport: Transport; requests: HttpRequest[] } {
  const requests: HttpRequest[] = [];
  const transport: Transport = {
    async send(request) {
      requests.push(request);
      const query = new URL(request.url).searchParams;
      const limit = Number(query.get('limit') ?? 10);
      const offset = Number(query.get('offset') ?? 0);
      const page = rows.slice(offset, offset + limit);
      return json(200, { data: page, meta: { pagination: { limit, offset, totalCount: rows.length }, filterableFields: ['id', 'name'] } });
    },
    close() {},
  };
  return { transport, requests };
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): HttpAnswer {
  return { status, headers, body: JSON.stringify(body) };
}

const rows = (count: number) => Array.from({ length: count }, (_, i) => ({ id: `id${String(i).padStart(5, '0')}`, name: `n${i}` }));

test('a list follows the pages, 500 at a time, until every match is read', async () => {
  const { transport, requests } = fakeList(rows(1203));
  const result = await new ManagementClient(base, transport, 'token-1').list('/identities', 'name contains "n"');
  assert.equal(result.items.length, 1203);
  assert.equal(result.totalCount, 1203);
  assert.deepEqual(
    requests.map((request) => [...new URL(request.url).searchParams.entries()]),
    [0, 500, 1000].map((offset) => [['filter', 'name contains "n"'], ['limit', '500'], ['offset', String(offset)]]),
  );
  assert.equal(requests[0]!.headers['zt-session'], 'token-1');
  assert.equal(requests[0]!.method, 'GET');
});

test('--limit stops early; an empty filter is not sent; a filter with its own limit clause is sent alone', async () => {
  const limited = fakeList(rows(1203));
  const first = await new ManagementClient(base, limited.transport).list('/identities', undefined, 600);
  assert.equal(first.items.length, 600);
  assert.deepEqual(limited.requests.map((request) => new URL(request.url).search), ['?limit=500&offset=0', '?limit=100&offset=500']);

  const clauses = fakeList(rows(30));
  const page = await new ManagementClient(base, clauses.transport).list('/identities', 'true sort by name skip 5 limit 3');
  assert.deepEqual(clauses.requests.map((request) => [...new URL(request.url).searchParams.entries()]), [[['filter', 'true sort by name skip 5 limit 3']]]);
  assert.equal(page.totalCount, 30);
  assert.equal(page.items.length, 10, "the fake ignores the clauses; the client takes the API's page as it is");
});

test('paging clauses are found outside string literals only', () => {
  assert.equal(hasPagingClause('true limit 5'), true);
  assert.equal(hasPagingClause('name = "x" SKIP 2'), true);
  assert.equal(hasPagingClause('true limit none'), true);
  assert.equal(hasPagingClause('name = "speed limit 5"'), false);
  assert.equal(hasPagingClause('name = "say \\"limit 5\\""'), false);
  assert.equal(hasPagingClause('name contains "unlimited"'), false);
});

test('names become ZitiQL string literals with the escapes the grammar knows', () => {
  assert.equal(zitiQlString('alice'), '"alice"');
  assert.equal(zitiQlString('a "quoted" \\ name\n'), '"a \\"quoted\\" \\\\ name\\n"');
});

test("the API's error envelope becomes an ApiFailure with its code, message, cause and challenge", async () => {
  const transport: Transport = {
    async send() {
      return json(
        401,
        { error: { code: 'UNAUTHORIZED', message: 'The request could not be completed.', requestId: 'r1', cause: { code: 'X', message: 'y' } }, meta: {} },
        { 'www-authenticate': 'zt-session realm="zt-session" error="invalid" error_description="token is invalid"' },
      );
    },
    close() {},
  };
  await assert.rejects(new ManagementClient(base, transport, 't').get('/identities/x'), (error: unknown) => {
    assert.ok(error instanceof ApiFailure);
    assert.deepEqual([error.status, error.code, error.apiMessage, error.requestId, error.apiCause, error.sessionProblem], [401, 'UNAUTHORIZED', 'The request could not be completed.', 'r1', { code: 'X', message: 'y' }, 'invalid']);
    return true;
  });
});

test('an answer without the envelope is a failure that asks whether this is the Management API', async () => {
  const answering = (answer: HttpAnswer): Transport => ({ send: async () => answer, close() {} });
  await assert.rejects(new ManagementClient(base, answering({ status: 404, headers: {}, body: '<html>' })).get('/x'), (error: unknown) => error instanceof EdgeFailure && /answered 404 without the API's error envelope/.test(error.message));
  await assert.rejects(new ManagementClient(base, answering({ status: 200, headers: {}, body: '{"ok":true}' })).get('/x'), (error: unknown) => error instanceof EdgeFailure && /without the API's envelope/.test(error.message));
});

test('bodies go as JSON, with their content type', async () => {
  const { transport, requests } = fakeList([]);
  await new ManagementClient(base, transport, 't').create('/services', { name: 'web', encryptionRequired: true });
  assert.equal(requests[0]!.method, 'POST');
  assert.equal(requests[0]!.url, `${base}/services`);
  assert.equal(requests[0]!.headers['content-type'], 'application/json');
  assert.deepEqual(JSON.parse(requests[0]!.body!), { name: 'web', encryptionRequired: true });
});

test('connection problems name what to do', () => {
  const problem = (code: string) => connectionProblem('https://127.0.0.1:1280', Object.assign(new Error('boom'), { code })).message;
  assert.match(problem('SELF_SIGNED_CERT_IN_CHAIN'), /^the certificate of https:\/\/127\.0\.0\.1:1280 is not trusted \(SELF_SIGNED_CERT_IN_CHAIN\): pass --ca <pem file>/);
  assert.match(problem('UNABLE_TO_VERIFY_LEAF_SIGNATURE'), /not trusted/);
  assert.match(problem('ERR_TLS_CERT_ALTNAME_INVALID'), /does not name that host/);
  assert.match(problem('ECONNREFUSED'), /connection refused/);
  assert.match(problem('ENOTFOUND'), /does not resolve/);
  assert.match(problem('EWHATEVER'), /^cannot reach https:\/\/127\.0\.0\.1:1280: EWHATEVER: boom$/);
});

test('a name is looked up by name or id; none, or more than one, is a failure that says so', async () => {
  const identity = kindNamed('identity');
  const lookup = async (stored: Record<string, unknown>[], reference: string) => {
    const requests: HttpRequest[] = [];
    const transport: Transport = {
      async send(request) {
        requests.push(request);
        return json(200, { data: stored, meta: { pagination: { limit: 3, offset: 0, totalCount: stored.length } } });
      },
      close() {},
    };
    const id = await resolveEntityId(new ManagementClient(base, transport), identity, reference);
    return { id, requests };
  };
  const found = await lookup([{ id: 'CKy.B2fxXQ', name: 'alice' }], 'alice');
  assert.equal(found.id, 'CKy.B2fxXQ');
  assert.equal(new URL(found.requests[0]!.url).searchParams.get('filter'), 'id = "alice" or name = "alice"');
  assert.equal(new URL(found.requests[0]!.url).pathname, '/edge/management/v1/identities');
  assert.deepEqual(await lookup([], 'id:CKy.B2fxXQ'), { id: 'CKy.B2fxXQ', requests: [] }, 'id: skips the lookup');
  await assert.rejects(lookup([], 'bob'), (error: unknown) => error instanceof EdgeFailure && error.message === "no identity has the name or id 'bob'");
  await assert.rejects(lookup([{ id: 'a' }, { id: 'b' }], 'a'), (error: unknown) => error instanceof EdgeFailure && /'a' names more than one identity \(ids a, b\): write id:<id>/.test(error.message));
  let filter: string | null = null;
  const byUsername = { send: async (request: HttpRequest) => ((filter = new URL(request.url).searchParams.get('filter')), json(200, { data: [{ id: 'au1' }], meta: {} })), close() {} };
  assert.equal(await resolveEntityId(new ManagementClient(base, byUsername), kindNamed('authenticator'), 'alice'), 'au1');
  assert.equal(filter, 'id = "alice" or username = "alice"', 'authenticators are named by username');
  const sessions = await resolveEntityId(new ManagementClient(base, { send: async () => assert.fail('api sessions are named by id only'), close() {} }), kindNamed('api-session'), 'sess1');
  assert.equal(sessions, 'sess1');
});
