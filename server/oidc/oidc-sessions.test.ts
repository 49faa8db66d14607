// OIDC sessions judged by id alone (a live circuit's re-check), from the newest valid access token this controller
// saw for them: revoked, identity disabled, or no token for an access-token lifetime past the newest one's expiry
// ends them; an unseen session is unknown here.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../common/time/clock.ts';
import { ApiSessionService } from '../edge/api-session-service.ts';
import { AuthPolicyService } from '../edge/auth-policy-service.ts';
import { ModelWriter } from '../edge/model-writer.ts';
import { RevocationService } from '../edge/revocation-service.ts';
import type { Identity } from '../model/entities.ts';
import { openTestModel } from '../model/model-test-harness.ts';
import type { SessionClaims } from './oidc-claims.ts';
import { OidcSessions } from './oidc-sessions.ts';
import { OidcSigningKeys } from './oidc-signing-keys.ts';
import { OidcTokens } from './oidc-tokens.ts';

const accessTokenMs = 60_000;

async function setup(maxSeen?: number) {
  const { store, node, close } = await openTestModel({ prefix: 'edgeward-oidc-sessions-' });
  const clock = new ManualClock(Date.UTC(2026, 5, 1));
  const writer = new ModelWriter(node);
  const keys = new OidcSigningKeys(store, writer, clock, 'ctrl-1', 'https://127.0.0.1:1280/oidc');
  await keys.rotate();
  const tokens = new OidcTokens(keys, clock, { accessTokenMs, refreshTokenMs: 3_600_000, idTokenMs: accessTokenMs });
  const revocations = new RevocationService(store, writer, clock);
  const policies = new AuthPolicyService(store, writer, clock);
  const sessions = new OidcSessions(store, tokens, new ApiSessionService(store, writer, clock, { timeoutMs: 30 * 60_000, activityBatchSize: 250 }), policies, revocations, clock, undefined, maxSeen);
  const at = new Date(clock.now()).toISOString();
  const identity: Identity = {
    id: 'ident-1', createdAt: at, updatedAt: at, tags: {}, name: 'grace', typeId: 'Default', isAdmin: false, isDefaultAdmin: false,
    authPolicyId: 'default', externalId: null, roleAttributes: [], disabledAt: null, disabledUntil: null,
  };
  await writer.write({ type: 'identity.create', identity });
  clock.advance(2_000);
  const claims = (asid: string): SessionClaims => ({
    sub: identity.id, z_asid: asid, z_t: 'a', z_ia: false, z_ct: [], z_authid: 'auth-1', amr: ['cert'], z_ra: '127.0.0.1:5000',
    auth_time: Math.floor(clock.now() / 1000), azp: 'openziti',
  });
  const access = (asid: string) => tokens.issue(claims(asid)).accessToken;
  return { clock, writer, sessions, identity, access, close };
}

test('a session is judged by id from the newest access token seen for it; one never seen is unknown', async () => {
  const { sessions, access, close } = await setup();
  assert.equal(sessions.sessionStatus('11111111-1111-4111-8111-111111111111'), undefined);
  const asid = '22222222-2222-4222-8222-222222222222';
  assert.equal(sessions.checkAccessToken(access(asid)).ok, true);
  const status = sessions.sessionStatus(asid);
  assert.equal(status?.ok, true);
  assert.equal(status?.ok && status.session.id, asid);
  await close();
});

test('a session whose token expired is live for one access-token lifetime more (time to refresh), then ended', async () => {
  const { sessions, access, clock, close } = await setup();
  const asid = '33333333-3333-4333-8333-333333333333';
  assert.equal(sessions.checkAccessToken(access(asid)).ok, true);
  clock.advance(accessTokenMs + 5_000);
  assert.equal(sessions.sessionStatus(asid)?.ok, true, 'expired a moment ago: the client may still refresh');
  // A refreshed token moves the end on.
  assert.equal(sessions.checkAccessToken(access(asid)).ok, true);
  clock.advance(accessTokenMs + accessTokenMs / 2);
  assert.equal(sessions.sessionStatus(asid)?.ok, true, 'the newest token counts');
  clock.advance(accessTokenMs);
  const ended = sessions.sessionStatus(asid);
  assert.equal(ended?.ok, false);
  assert.equal(!ended?.ok && ended?.error, 'expired');
  await close();
});

test('a revoked session, or one whose identity is disabled, is not ok by id', async () => {
  const { sessions, access, writer, identity, clock, close } = await setup();
  const revoked = '44444444-4444-4444-8444-444444444444';
  const other = '55555555-5555-4555-8555-555555555555';
  assert.equal(sessions.checkAccessToken(access(revoked)).ok, true);
  assert.equal(sessions.checkAccessToken(access(other)).ok, true);
  await sessions.revoke(revoked);
  const status = sessions.sessionStatus(revoked);
  assert.equal(status?.ok, false);
  assert.match(!status?.ok ? status!.reason : '', /revoked/);
  assert.equal(sessions.sessionStatus(other)?.ok, true, 'another session of the identity lives on');
  await writer.write({ type: 'identity.update', id: identity.id, at: new Date(clock.now()).toISOString(), changes: { disabledAt: new Date(clock.now()).toISOString(), disabledUntil: null } });
  const disabled = sessions.sessionStatus(other);
  assert.equal(disabled?.ok, false);
  assert.match(!disabled?.ok ? disabled!.reason : '', /disabled/);
  await close();
});

test('an invalid token is not remembered, and at most maxSeen sessions are: the least recently seen goes first', async () => {
  const { sessions, access, close } = await setup(2);
  const ids = ['66666666-6666-4666-8666-666666666661', '66666666-6666-4666-8666-666666666662', '66666666-6666-4666-8666-666666666663'];
  const tampered = access('77777777-7777-4777-8777-777777777777').slice(0, -4) + 'AAAA';
  assert.equal(sessions.checkAccessToken(tampered).ok, false);
  assert.equal(sessions.sessionStatus('77777777-7777-4777-8777-777777777777'), undefined);
  for (const id of ids) assert.equal(sessions.checkAccessToken(access(id)).ok, true);
  assert.equal(sessions.sessionStatus(ids[0]!), undefined, 'the oldest was dropped');
  assert.equal(sessions.sessionStatus(ids[1]!)?.ok, true);
  assert.equal(sessions.sessionStatus(ids[2]!)?.ok, true);
  await close();
});
