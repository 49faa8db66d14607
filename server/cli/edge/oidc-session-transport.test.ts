import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EdgeFailure, UnreachableFailure } from './edge-errors.ts';
import type { HttpAnswer, HttpRequest, Transport } from './management-client.ts';
import { managementUrlsOf, oidcSessionTransport, type OidcSessionState } from './oidc-session-transport.ts';

const a = 'https://a.test:1280/edge/management/v1';
const b = 'https://b.test:1280/edge/management/v1';

/** Controllers by origin: `down` ones refuse connections; each honours the access token it last issued. */
function cluster(down: Set<string>, refreshable = true) {
  const seen: string[] = [];
  let issued = 0;
  const valid = new Set(['access-0']);
  const transport: Transport = {
    async send(request: HttpRequest): Promise<HttpAnswer> {
      const url = new URL(request.url);
      seen.push(`${request.method} ${url.host}${url.pathname}`);
      if (down.has(url.origin)) throw new UnreachableFailure(`cannot connect to ${url.origin}: connection refused`);
      if (url.pathname === '/oidc/oauth/token') {
        if (!refreshable) return { status: 400, headers: {}, body: JSON.stringify({ error: 'invalid_grant', error_description: 'refresh token refused: revoked' }) };
        issued += 1;
        valid.add(`access-${issued}`);
        return { status: 200, headers: {}, body: JSON.stringify({ access_token: `access-${issued}`, refresh_token: `refresh-${issued}`, expires_in: 60 }) };
      }
      const token = (request.headers.authorization ?? '').replace(/^Bearer /, '');
      if (!valid.has(token)) return { status: 401, headers: { 'www-authenticate': 'Bearer realm="openziti-oidc" error="expired" error_description="token expired"' }, body: '{"error":{"code":"UNAUTHORIZED"}}' };
      return { status: 200, headers: {}, body: JSON.stringify({ data: { token } }) };
    },
    close() {},
  };
  return { transport, seen, valid };
}

function start(now: number, token = 'access-0'): OidcSessionState {
  return { controllerUrl: a, tokens: { accessToken: token, refreshToken: 'refresh-0', expiresAtMs: now + 60_000 }, controllers: [a, b] };
}

test('calls carry the access token as Bearer; a token near expiry is refreshed first and the new one kept', async () => {
  const { transport, seen } = cluster(new Set());
  const saved: OidcSessionState[] = [];
  let now = 0;
  const session = oidcSessionTransport(transport, start(0), { now: () => now, notice: () => assert.fail('no notice'), saved: (state) => saved.push(state), loginAgain: 'log in again' });
  assert.equal(JSON.parse((await session.send({ method: 'GET', url: `${a}/identities`, headers: {} })).body).data.token, 'access-0');
  now = 55_000; // 5 s left: under the margin
  assert.equal(JSON.parse((await session.send({ method: 'GET', url: `${a}/identities`, headers: {} })).body).data.token, 'access-1');
  assert.deepEqual(seen, ['GET a.test:1280/edge/management/v1/identities', 'POST a.test:1280/oidc/oauth/token', 'GET a.test:1280/edge/management/v1/identities']);
  assert.equal(saved.length, 1);
  assert.equal(saved[0]!.tokens.refreshToken, 'refresh-1');
});

test('a 401 "expired" is refreshed and the call sent once more', async () => {
  const { transport, valid } = cluster(new Set());
  valid.delete('access-0');
  const session = oidcSessionTransport(transport, start(0), { now: () => 0, notice: () => undefined, saved: () => undefined, loginAgain: 'log in again' });
  assert.equal((await session.send({ method: 'GET', url: `${a}/identities`, headers: {} })).status, 200);
});

test('an unreachable controller is left for the next, where the session is refreshed, with a notice', async () => {
  const { transport, seen } = cluster(new Set(['https://a.test:1280']));
  const notices: string[] = [];
  const saved: OidcSessionState[] = [];
  const session = oidcSessionTransport(transport, start(0), { now: () => 0, notice: (line) => notices.push(line), saved: (state) => saved.push(state), loginAgain: 'log in again' });
  const answer = await session.send({ method: 'GET', url: `${a}/identities?limit=5`, headers: {} });
  assert.equal(JSON.parse(answer.body).data.token, 'access-1');
  assert.deepEqual(notices, ['warning: controller https://a.test:1280 is unreachable: continuing through https://b.test:1280']);
  assert.equal(saved.at(-1)!.controllerUrl, b);
  assert.equal(seen.at(-1), 'GET b.test:1280/edge/management/v1/identities');
  // Later calls (built on the old base URL) go to the new controller directly.
  await session.send({ method: 'GET', url: `${a}/services`, headers: {} });
  assert.equal(seen.at(-1), 'GET b.test:1280/edge/management/v1/services');
});

test('no controller answering, or a refused refresh token, is a failure that says what to do', async () => {
  const everyone = cluster(new Set(['https://a.test:1280', 'https://b.test:1280']));
  const dead = oidcSessionTransport(everyone.transport, start(0), { now: () => 0, notice: () => undefined, saved: () => undefined, loginAgain: 'log in again' });
  await assert.rejects(dead.send({ method: 'GET', url: `${a}/identities`, headers: {} }), (error: unknown) => error instanceof EdgeFailure && /no controller of the cluster answers/.test(error.message));
  const revoked = cluster(new Set(), false);
  const stale = oidcSessionTransport(revoked.transport, start(0), { now: () => 59_000, notice: () => undefined, saved: () => undefined, loginAgain: 'log in again: edgeward edge login https://a.test:1280 -u admin' });
  await assert.rejects(stale.send({ method: 'GET', url: `${a}/identities`, headers: {} }), (error: unknown) => error instanceof EdgeFailure && /can no longer be refreshed \(invalid_grant: .*\): log in again: edgeward edge login/.test(error.message));
});

test('the failover list is every controller\'s management URL, the login\'s first, once each', () => {
  const listed = [
    { apiAddresses: { 'edge-management': [{ url: 'https://b.test:1280/edge/management/v1', version: 'v1' }], 'edge-client': [{ url: 'https://b.test:1280/edge/client/v1' }] } },
    { apiAddresses: { 'edge-management': [{ url: `${a}/`, version: 'v1' }] } },
    { apiAddresses: null },
    { apiAddresses: { 'edge-management': [{ url: 'http://plain.test/edge/management/v1' }] } },
  ];
  assert.deepEqual(managementUrlsOf(listed, a), [a, b]);
});
