// OIDC tokens as a controller issues and checks them: signed with this controller's published key and verified by
// any controller that has the model; refused when tampered, of another type, expired or not yet valid, signed by an
// unpublished key or another algorithm, naming another issuer or audience. Keys: a new one retires the old (which
// still verifies until pruned), at most maxKeysPerController kept. Sessions: revocations, a disabled identity and a
// changed auth policy refuse every token of the session.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { test } from 'node:test';
import { ManualClock } from '../../common/time/clock.ts';
import { openTestModel } from '../model/model-test-harness.ts';
import { ModelWriter } from '../edge/model-writer.ts';
import { ApiSessionService } from '../edge/api-session-service.ts';
import { AuthPolicyService } from '../edge/auth-policy-service.ts';
import { IdentityService } from '../edge/identity-service.ts';
import { RevocationService } from '../edge/revocation-service.ts';
import { maxKeysPerController, oidcKeyTables, type OidcSigningKey } from '../model/oidc-key-entities.ts';
import { signJws, signRs256 } from './compact-jws.ts';
import { defaultAuthPolicy } from '../edge/default-auth-policy.ts';
import type { SessionClaims } from './oidc-claims.ts';
import { OidcSessions } from './oidc-sessions.ts';
import { OidcSigningKeys } from './oidc-signing-keys.ts';
import { OidcTokens, defaultTokenLifetimes } from './oidc-tokens.ts';
import { SupersededRefreshTokens } from './superseded-refresh-tokens.ts';

const issuer = 'https://ctrl1.test:1280/oidc';

async function setup() {
  const { store, node } = await openTestModel({ prefix: 'edgeward-oidc-tokens-' });
  const writer = new ModelWriter(node);
  const clock = new ManualClock(Date.parse('2026-11-29T12:00:00Z'));
  const keys = new OidcSigningKeys(store, writer, clock, 'ctrl1', issuer);
  const otherKeys = new OidcSigningKeys(store, writer, clock, 'ctrl2', 'https://ctrl2.test:1280/oidc');
  const tokens = new OidcTokens(keys, clock, defaultTokenLifetimes);
  const identities = new IdentityService(store, writer, clock);
  const policies = new AuthPolicyService(store, writer, clock);
  const apiSessions = new ApiSessionService(store, writer, clock, { timeoutMs: 30 * 60_000, activityBatchSize: 100 });
  const revocations = new RevocationService(store, writer, clock);
  const sessions = new OidcSessions(store, tokens, apiSessions, policies, revocations, clock);
  return { store, writer, clock, keys, otherKeys, tokens, identities, policies, revocations, sessions };
}

const claimsFor = (identityId: string, asid = 'a1b2c3d4-0000-4000-8000-000000000001'): SessionClaims => ({
  sub: identityId,
  z_asid: asid,
  z_t: 'a',
  z_ia: false,
  z_ct: [],
  z_authid: 'auth1',
  amr: ['password'],
  z_ra: '127.0.0.1:5000',
  auth_time: Math.floor(Date.parse('2026-11-29T12:00:00Z') / 1000),
  azp: 'openziti',
});

test('issued tokens verify; every kind of tampering or misuse is refused, with the reason', async () => {
  const { keys, otherKeys, tokens, clock } = await setup();
  assert.equal(tokens.ready, false);
  assert.throws(() => tokens.issue(claimsFor('id1')), /no committed OIDC signing key/);
  await keys.rotate();
  await otherKeys.rotate();
  const issued = tokens.issue(claimsFor('id1'), { nonce: 'n-1' });
  const access = tokens.verify(issued.accessToken, 'a');
  assert.ok(access.ok, JSON.stringify(access));
  assert.equal(access.claims.iss, issuer);
  assert.deepEqual(access.claims.aud, ['openziti']);
  assert.ok(tokens.verify(issued.refreshToken, 'r').ok);
  assert.equal(issued.expiresIn, 1800);

  const refusal = (token: string, type: 'a' | 'r' = 'a') => {
    const result = tokens.verify(token, type);
    return result.ok ? 'accepted' : `${result.error}: ${result.reason}`;
  };
  assert.match(refusal(issued.refreshToken), /^invalid: token type r/);
  assert.match(refusal(issued.accessToken, 'r'), /^invalid: token type a/);
  assert.match(refusal(issued.idToken), /^invalid: token type undefined/);
  const [header, payload, signature] = issued.accessToken.split('.') as [string, string, string];
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const headerOf = JSON.parse(Buffer.from(header, 'base64url').toString()) as Record<string, unknown>;
  assert.match(refusal(`${header}.${encode({ ...claims, z_ia: true })}.${signature}`), /^invalid: bad signature/);
  assert.match(refusal(`${encode({ ...headerOf, alg: 'none' })}.${payload}.`), /^invalid: algorithm none/);
  assert.match(refusal(`${encode({ ...headerOf, alg: 'HS256' })}.${payload}.${signature}`), /^invalid: algorithm HS256/);
  // An RS256 signature by the right kid is no ES256 signature: the key, not the token, names the algorithm.
  const { privateKey: rsa } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  assert.match(refusal(signRs256({ kid: keys.signingKey()!.kid, typ: 'JWT' }, claims, rsa)), /^invalid: algorithm RS256 is not the key's ES256/);
  assert.match(refusal(`${encode({ ...headerOf, kid: 'unpublished' })}.${payload}.${signature}`), /^invalid: unknown signing key/);
  assert.match(refusal('not.a.jwt!'), /^invalid: not a JWT/);
  assert.match(refusal('x'.repeat(9000)), /^invalid: not a JWT/);

  // Signed with a published key, but claiming what that key's controller would never write.
  const forge = (changes: Record<string, unknown>, privateKey = (keys.signingKey()!).privateKey, kid = keys.signingKey()!.kid) =>
    signJws({ alg: 'ES256', kid, typ: 'JWT' }, { ...claims, ...changes }, privateKey);
  assert.match(refusal(forge({ iss: 'https://ctrl2.test:1280/oidc' })), /^invalid: issuer/);
  assert.match(refusal(forge({ aud: ['someone-else'] })), /^invalid: wrong audience/);
  assert.match(refusal(forge({ sub: '' })), /^invalid: no sub/);
  assert.match(refusal(forge({ z_asid: undefined })), /^invalid: no z_asid/);
  assert.match(refusal(forge({ nbf: (claims.iat as number) + 600 })), /^invalid: token not valid yet/);
  assert.equal(refusal(forge({ aud: 'native' })), 'accepted', 'OpenZiti\'s other client id is an accepted audience');
  const { privateKey: stranger } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  assert.match(refusal(forge({}, stranger)), /^invalid: bad signature/);
  // The other controller's tokens verify here: its key is published.
  const otherTokens = new OidcTokens(otherKeys, clock, defaultTokenLifetimes);
  assert.ok(tokens.verify(otherTokens.issue(claimsFor('id1')).accessToken, 'a').ok);

  clock.advance(30 * 60_000 + 3_000);
  assert.match(refusal(issued.accessToken), /^expired/);
  assert.ok(tokens.verify(issued.refreshToken, 'r').ok, 'the refresh token lives 24 h');
});

test('keys: a new one retires the previous (which still verifies), at most maxKeysPerController, pruned after retirement', async () => {
  const { keys, tokens, store, clock } = await setup();
  await keys.rotate();
  const first = keys.signingKey()!.kid;
  const early = tokens.issue(claimsFor('id1'));
  clock.advance(1000);
  await keys.rotate();
  const rows = () => store.table<OidcSigningKey>(oidcKeyTables.signingKeys).all();
  assert.equal(rows().find((row) => row.id === first)?.retiredAt, new Date(clock.now()).toISOString());
  assert.equal(rows().filter((row) => row.retiredAt === null).length, 1);
  assert.ok(tokens.verify(early.accessToken, 'a').ok, 'a retired key still verifies');
  assert.deepEqual(keys.publishedJwks().keys.map((key) => [key.kty, key.alg, key.use]), [['EC', 'ES256', 'sig'], ['EC', 'ES256', 'sig']]);
  assert.equal(await keys.rotateIfDue(60_000), false, 'not yet due');
  for (let n = 0; n < maxKeysPerController; n++) {
    clock.advance(1000);
    await keys.rotate();
  }
  assert.equal(rows().length, maxKeysPerController);
  assert.equal(tokens.verify(early.accessToken, 'a').ok, false, 'the oldest key was dropped');
  clock.advance(24 * 3_600_000 + 1);
  assert.equal(await keys.prune(24 * 3_600_000), maxKeysPerController - 1);
  assert.deepEqual(rows().map((row) => row.retiredAt), [null]);
});

test('sessions: revocations, a disabled identity and a changed auth policy refuse the session; another session lives', async () => {
  const { keys, tokens, identities, sessions, revocations, clock, policies } = await setup();
  await keys.rotate();
  const { id: policyId } = await policies.create({ name: 'oidc-policy', tags: {}, primary: defaultAuthPolicy.primary, secondary: defaultAuthPolicy.secondary });
  const identity = await identities.create({ name: 'alice', isAdmin: false, roleAttributes: [], authPolicyId: policyId });
  const ok = (token: string) => {
    const check = sessions.checkAccessToken(token);
    return check.ok ? 'ok' : check.reason;
  };
  const first = tokens.issue(claimsFor(identity.id, 'a1b2c3d4-0000-4000-8000-000000000001'));
  const second = tokens.issue(claimsFor(identity.id, 'a1b2c3d4-0000-4000-8000-000000000002'));
  const check = sessions.checkAccessToken(first.accessToken);
  assert.ok(check.ok);
  assert.equal(check.session.id, 'a1b2c3d4-0000-4000-8000-000000000001');
  assert.equal(check.session.identityId, identity.id);
  await sessions.revoke('a1b2c3d4-0000-4000-8000-000000000001');
  assert.match(ok(first.accessToken), /API session .* was revoked/);
  assert.match(ok(first.refreshToken), /token type r/);
  assert.equal(sessions.checkRefreshToken(first.refreshToken, 'openziti').ok, false);
  assert.equal(ok(second.accessToken), 'ok');
  await revocations.create({ id: second.accessJti, type: 'JTI', tags: {} });
  assert.match(ok(second.accessToken), /token .* was revoked/);
  const refreshed = sessions.checkRefreshToken(second.refreshToken, 'openziti');
  assert.ok(refreshed.ok);
  assert.equal(sessions.checkRefreshToken(second.refreshToken, 'native').ok, false, 'only the client it was issued to');
  clock.advance(2000);
  const third = sessions.refresh(refreshed);
  assert.equal(ok(third.accessToken), 'ok', 'a refresh carries the session on with a new token');
  clock.advance(2000);
  await revocations.create({ id: identity.id, type: 'IDENTITY', tags: {} });
  assert.match(ok(third.accessToken), /identity .* was revoked/);
  clock.advance(2000);
  const after = tokens.issue({ ...claimsFor(identity.id, 'a1b2c3d4-0000-4000-8000-000000000003'), auth_time: Math.floor(clock.now() / 1000) });
  assert.equal(ok(after.accessToken), 'ok', 'a login after the identity revocation is not affected');
  await identities.disable(identity.id, 0);
  assert.match(ok(after.accessToken), /is disabled/);
  await identities.enable(identity.id);
  assert.equal(ok(after.accessToken), 'ok');
  clock.advance(2000);
  await policies.update(policyId, { name: 'oidc-policy', tags: {}, primary: defaultAuthPolicy.primary, secondary: { ...defaultAuthPolicy.secondary, requireTotp: true } });
  assert.match(ok(after.accessToken), /changed after the login/);
});

test('a refresh token is good once: refused at once where it was used, everywhere after a flush; the table share is kept', async () => {
  const { store, writer, keys, tokens, identities, revocations, clock, policies } = await setup();
  await keys.rotate();
  const identity = await identities.create({ name: 'bob', isAdmin: false, roleAttributes: [] });
  const apiSessions = new ApiSessionService(store, writer, clock, { timeoutMs: 30 * 60_000, activityBatchSize: 100 });
  const here = new SupersededRefreshTokens(writer, clock, () => revocations.count(), { maxQueued: 10, batchSize: 2, maxRevocations: 8, maxTableShare: 0.5 });
  const onThisController = new OidcSessions(store, tokens, apiSessions, policies, revocations, clock, here);
  const onAnother = new OidcSessions(store, tokens, apiSessions, policies, revocations, clock);
  const first = tokens.issue(claimsFor(identity.id));
  const used = onThisController.checkRefreshToken(first.refreshToken, 'openziti');
  assert.ok(used.ok);
  const next = onThisController.refresh(used);
  assert.equal(onThisController.checkRefreshToken(first.refreshToken, 'openziti').ok, false, 'refused at once where it was used');
  assert.ok(onAnother.checkRefreshToken(first.refreshToken, 'openziti').ok, 'not yet replicated');
  assert.deepEqual(await here.flush(), { written: 1, dropped: 0 });
  const elsewhere = onAnother.checkRefreshToken(first.refreshToken, 'openziti');
  assert.ok(!elsewhere.ok && /revoked/.test(elsewhere.reason), 'refused on every controller after the flush');
  assert.ok(onAnother.checkRefreshToken(next.refreshToken, 'openziti').ok, 'its successor refreshes');
  // Past the share of the table these may use, the rest stay refused only where they were used.
  let current = next;
  for (let n = 0; n < 6; n++) {
    clock.advance(1000);
    const check = onThisController.checkRefreshToken(current.refreshToken, 'openziti');
    assert.ok(check.ok);
    current = onThisController.refresh(check);
  }
  assert.deepEqual(await here.flush(), { written: 3, dropped: 3 });
  assert.equal(revocations.count(), 4);
});
