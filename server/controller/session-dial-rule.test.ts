// The session-dial rule with OIDC access tokens: a JWT is judged by the OIDC session checks (and then the same rule as
// a legacy session), its expiry is handed on for the edge hello; a live circuit's OIDC session with no row is judged
// by id; an UpdateToken must name the same session and identity (edge-token-update-check.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../common/time/clock.ts';
import { ApiSessionService } from '../edge/api-session-service.ts';
import { AuthPolicyService } from '../edge/auth-policy-service.ts';
import type { EdgeServices } from '../edge/edge-services.ts';
import { ModelWriter } from '../edge/model-writer.ts';
import { RevocationService } from '../edge/revocation-service.ts';
import { tables, type Identity } from '../model/entities.ts';
import { openTestModel } from '../model/model-test-harness.ts';
import { OidcSessions } from '../oidc/oidc-sessions.ts';
import { OidcSigningKeys } from '../oidc/oidc-signing-keys.ts';
import { OidcTokens } from '../oidc/oidc-tokens.ts';
import type { RouterControl } from '../routers/router-control.ts';
import type { SessionDialer } from '../circuits/circuit-service.ts';
import type { SessionStatus } from '../circuits/live-circuit-check.ts';
import { checkEdgeTokenUpdate } from '../circuits/edge-token-update-check.ts';
import { applySessionDialRule } from './session-dial-rule.ts';

const accessTokenMs = 60_000;

async function setup() {
  const { store, node, close } = await openTestModel({ prefix: 'edgeward-dial-rule-' });
  const clock = new ManualClock(Date.UTC(2026, 5, 1));
  const writer = new ModelWriter(node);
  const keys = new OidcSigningKeys(store, writer, clock, 'ctrl-1', 'https://127.0.0.1:1280/oidc');
  await keys.rotate();
  const tokens = new OidcTokens(keys, clock, { accessTokenMs, refreshTokenMs: 3_600_000, idTokenMs: accessTokenMs });
  const apiSessions = new ApiSessionService(store, writer, clock, { timeoutMs: 30 * 60_000, activityBatchSize: 250 });
  const authPolicies = new AuthPolicyService(store, writer, clock);
  const oidcSessions = new OidcSessions(store, tokens, apiSessions, authPolicies, new RevocationService(store, writer, clock), clock);
  const at = new Date(clock.now()).toISOString();
  for (const id of ['alice', 'bob']) {
    const identity: Identity = { id, createdAt: at, updatedAt: at, tags: {}, name: id, typeId: 'Default', isAdmin: false, isDefaultAdmin: false, authPolicyId: 'default', externalId: null, roleAttributes: [], disabledAt: null, disabledUntil: null };
    await writer.write({ type: 'identity.create', identity });
  }
  clock.advance(2_000);
  const services = {
    sessions: apiSessions,
    authPolicies,
    identities: { find: (id: string) => store.table<Identity>(tables.identities).get(id) },
    oidc: { enabled: true, sessions: oidcSessions },
  } as unknown as EdgeServices;
  let dialer!: SessionDialer;
  let status!: SessionStatus;
  let sessionIdOf!: (token: string) => string | undefined;
  const routers = {
    setSessionDialer: (given: SessionDialer) => (dialer = given),
    setSessionStatus: (given: SessionStatus, idOf: (token: string) => string | undefined) => {
      status = given;
      sessionIdOf = idOf;
    },
  } as unknown as RouterControl;
  applySessionDialRule(routers, services, clock);
  const access = (sub: string, asid: string) =>
    tokens.issue({ sub, z_asid: asid, z_t: 'a', z_ia: false, z_ct: [], z_authid: 'auth-1', amr: ['cert'], z_ra: '127.0.0.1:5000', auth_time: Math.floor(clock.now() / 1000), azp: 'openziti' });
  return { clock, dialer, status: (id: string) => status(id), sessionIdOf: (token: string) => sessionIdOf(token), access, oidcSessions, close };
}

const asid = '11111111-1111-4111-8111-111111111111';

test('an OIDC access token dials as its identity and session, with its expiry; an expired or tampered one is refused; a legacy token keeps its path', async () => {
  const { dialer, access, clock, close } = await setup();
  const issued = access('alice', asid);
  const verdict = dialer(issued.accessToken);
  assert.equal(verdict.ok, true, JSON.stringify(verdict));
  assert.equal(verdict.ok && verdict.identity.id, 'alice');
  assert.equal(verdict.ok && verdict.sessionId, asid);
  assert.equal(verdict.ok && verdict.expiresAtMs, issued.accessExpiresAtMs);
  const tampered = dialer(`${issued.accessToken.slice(0, -6)}AAAAAA`);
  assert.deepEqual(tampered, { ok: false, message: 'invalid access token: bad signature' });
  assert.deepEqual(dialer('8f4e2a4e-35a2-4ae1-9f70-51b7a0ab2f4c'), { ok: false, message: 'no such API session' }, 'a legacy token is looked up as before');
  clock.advance(accessTokenMs + 5_000);
  assert.deepEqual(dialer(issued.accessToken), { ok: false, message: 'the access token expired' });
  await close();
});

test('a live circuit of an OIDC session with no row: its id is read from the token, judged from the newest token seen, ended after revocation', async () => {
  const { dialer, status, sessionIdOf, access, oidcSessions, close } = await setup();
  const issued = access('alice', asid);
  assert.equal(sessionIdOf(issued.accessToken), asid);
  assert.deepEqual(status(asid), { ok: false, message: 'the API session ended' }, 'no token of it seen yet');
  assert.equal(dialer(issued.accessToken).ok, true);
  assert.equal(status(asid).ok, true, 'not "ended" for want of a row');
  await oidcSessions.revoke(asid);
  const revoked = status(asid);
  assert.equal(revoked.ok, false);
  assert.match(!revoked.ok ? revoked.message : '', /revoked/);
  await close();
});

test('an UpdateToken must carry a valid access token of the same API session and identity; a legacy channel may not update', async () => {
  const { dialer, access, clock, close } = await setup();
  const first = access('alice', asid).accessToken;
  clock.advance(10_000);
  const fresh = access('alice', asid);
  assert.deepEqual(checkEdgeTokenUpdate(dialer, { apiSession: first, token: fresh.accessToken }), { apiSessionId: asid, expiresAtMs: fresh.accessExpiresAtMs });
  const otherSession = access('alice', '22222222-2222-4222-8222-222222222222').accessToken;
  assert.deepEqual(checkEdgeTokenUpdate(dialer, { apiSession: first, token: otherSession }), { refused: { code: 'INVALID_API_SESSION', message: 'API session id does not match' } });
  const otherIdentity = access('bob', asid).accessToken;
  assert.deepEqual(checkEdgeTokenUpdate(dialer, { apiSession: first, token: otherIdentity }), { refused: { code: 'INVALID_API_SESSION', message: 'the token is of another identity' } });
  assert.deepEqual(checkEdgeTokenUpdate(dialer, { apiSession: first, token: 'not a token' }), { refused: { code: 'INVALID_API_SESSION', message: 'invalid token, could not be parsed' } });
  assert.equal((checkEdgeTokenUpdate(dialer, { apiSession: first, token: `${fresh.accessToken.slice(0, -6)}AAAAAA` }) as { refused: { message: string } }).refused.message, 'invalid token: invalid access token: bad signature');
  assert.equal((checkEdgeTokenUpdate(dialer, { apiSession: '8f4e2a4e-35a2-4ae1-9f70-51b7a0ab2f4c', token: fresh.accessToken }) as { refused: { code: string } }).refused.code, 'INVALID_API_SESSION_TYPE');
  assert.equal((checkEdgeTokenUpdate(dialer, null) as { refused: { code: string } }).refused.code, 'INVALID_API_SESSION_TYPE', 'a malformed request is refused, not thrown');
  await close();
});
