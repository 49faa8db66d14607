import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SignJWT, type JWTPayload } from 'jose';
import { ManualClock } from '../../../common/time/clock.ts';
import { ExtJwtVerifier, claimValue, type ExtJwtResult, type JwtSignerConfig } from './ext-jwt-verifier.ts';
import { JwksCache, type JwksSource } from './jwks-cache.ts';
import { startJwksServer, type JwksTestServer } from './jwks-test-server.ts';
import { base64url, makeSigningKey, signToken, type TestSigningKey } from './test-signing-keys.ts';

const issuer = 'https://idp.example.com';
const audience = 'edgeward';
const now = Date.UTC(2026, 0, 1);
const nowSeconds = now / 1000;

let server: JwksTestServer;
let rsa: TestSigningKey;
let ec: TestSigningKey;
let ed: TestSigningKey;
let rotated: TestSigningKey;

before(async () => {
  [server, rsa, ec, ed, rotated] = await Promise.all([
    startJwksServer(),
    makeSigningKey('rsa', 'rsa-1'),
    makeSigningKey('ec', 'ec-1'),
    makeSigningKey('ed25519', 'ed-1'),
    makeSigningKey('ec', 'ec-2'),
  ]);
});
after(() => server.close());

function signer(overrides: Partial<JwtSignerConfig> = {}): JwtSignerConfig {
  return {
    id: 'signer-1',
    name: 'Example IdP',
    issuer,
    audience,
    certPem: null,
    jwksEndpoint: null,
    kid: null,
    claimsProperty: 'sub',
    useExternalId: false,
    enabled: true,
    ...overrides,
  };
}

const certSigner = (key: TestSigningKey, overrides: Partial<JwtSignerConfig> = {}) => signer({ certPem: key.certPem, kid: key.kid, ...overrides });
const jwksSigner = (overrides: Partial<JwtSignerConfig> = {}) => signer({ jwksEndpoint: server.url(), ...overrides });

function claims(overrides: JWTPayload = {}): JWTPayload {
  return { iss: issuer, aud: audience, sub: 'alice', iat: nowSeconds, exp: nowSeconds + 600, ...overrides };
}

interface VerifierSetup {
  readonly verifier: ExtJwtVerifier;
  readonly cacheClock: ManualClock;
}

function verifierWith(jwks?: JwksSource): VerifierSetup {
  const cacheClock = new ManualClock(now);
  const source = jwks ?? new JwksCache({ trustedCaPems: [server.caPem], allowPrivateAddresses: true, now: () => cacheClock.now() });
  return { verifier: new ExtJwtVerifier({ jwks: source, now: () => now }), cacheClock };
}

const noJwks: JwksSource = {
  keyFor: () => Promise.reject(new Error('this test uses no JWKS')),
};

function assertOk(result: ExtJwtResult, subject: string): asserts result is Extract<ExtJwtResult, { ok: true }> {
  assert.ok(result.ok, `expected success, got ${result.ok ? '' : `${result.reason}: ${result.detail}`}`);
  assert.equal(result.subject, subject);
}

function assertFails(result: ExtJwtResult, reason: 'missing' | 'invalid' | 'expired', detail: RegExp): void {
  assert.equal(result.ok, false, 'expected a failure');
  if (result.ok) return;
  assert.equal(result.reason, reason, result.detail);
  assert.match(result.detail, detail);
}

function tamperSignature(token: string): string {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const bytes = Buffer.from(signature, 'base64url');
  bytes[Math.floor(bytes.length / 2)]! ^= 0x01;
  return `${header}.${payload}.${bytes.toString('base64url')}`;
}

test('RS256 and ES256 tokens verify against the signer certificate', async () => {
  const { verifier } = verifierWith(noJwks);
  for (const key of [rsa, ec]) {
    const result = await verifier.verify(await signToken(key, claims()), [certSigner(key)]);
    assertOk(result, 'alice');
    assert.equal(result.signer.id, 'signer-1');
    assert.equal(result.claims.iss, issuer);
  }
});

test('RS256, ES256 and EdDSA tokens verify against keys from the signer JWKS', async () => {
  server.serveJson({ keys: [rsa.jwk, ec.jwk, ed.jwk] });
  const { verifier } = verifierWith();
  for (const key of [rsa, ec, ed]) assertOk(await verifier.verify(await signToken(key, claims()), [jwksSigner()]), 'alice');
});

test('the subject comes from the configured claim: sub by default, a custom claim, or a nested one by pointer', async () => {
  const { verifier } = verifierWith(noJwks);
  const token = await signToken(rsa, claims({ email: 'alice@example.com', user: { id: 42, 'a/b': 'escaped' } }));
  assertOk(await verifier.verify(token, [certSigner(rsa, { claimsProperty: '' })]), 'alice');
  assertOk(await verifier.verify(token, [certSigner(rsa, { claimsProperty: '/sub' })]), 'alice');
  assertOk(await verifier.verify(token, [certSigner(rsa, { claimsProperty: 'email' })]), 'alice@example.com');
  assertOk(await verifier.verify(token, [certSigner(rsa, { claimsProperty: '/user/id' })]), '42');
  assertOk(await verifier.verify(token, [certSigner(rsa, { claimsProperty: '/user/a~1b' })]), 'escaped');
  assertFails(await verifier.verify(token, [certSigner(rsa, { claimsProperty: 'upn' })]), 'invalid', /^the claim upn is missing$/);
  assertFails(await verifier.verify(token, [certSigner(rsa, { claimsProperty: '/user' })]), 'invalid', /the claim \/user is missing/);
});

test('claimValue reads strings and numbers only, and never inherited properties', () => {
  const claims = { sub: 'alice', n: 7, flag: true, list: ['x'], empty: '', nested: { deep: { v: 'found' } } };
  assert.equal(claimValue(claims, ''), 'alice');
  assert.equal(claimValue(claims, 'n'), '7');
  assert.equal(claimValue(claims, '/nested/deep/v'), 'found');
  assert.equal(claimValue(claims, '/list/0'), 'x');
  assert.equal(claimValue(claims, 'nested/deep/v'), undefined, 'without a leading slash the name is literal');
  for (const property of ['flag', 'list', 'empty', 'nested', 'missing', 'constructor', '/toString', '/nested/__proto__', '/constructor/name']) {
    assert.equal(claimValue(claims, property), undefined, property);
  }
  assert.equal(claimValue({ 'https://example.com/email': 'a@b' }, 'https://example.com/email'), 'a@b');
});

test('useExternalId is passed through with the signer, for the caller to map the subject', async () => {
  const { verifier } = verifierWith(noJwks);
  const result = await verifier.verify(await signToken(rsa, claims()), [certSigner(rsa, { useExternalId: true })]);
  assertOk(result, 'alice');
  assert.equal(result.signer.useExternalId, true);
});

test('an expired token is reported as expired; a few seconds of skew are tolerated', async () => {
  const { verifier } = verifierWith(noJwks);
  const signers = [certSigner(rsa)];
  assertFails(await verifier.verify(await signToken(rsa, claims({ exp: nowSeconds - 6 })), signers), 'expired', /expired at 2025-12-31T23:59:54/);
  assertOk(await verifier.verify(await signToken(rsa, claims({ exp: nowSeconds - 4 })), signers), 'alice');
  const strict = new ExtJwtVerifier({ jwks: noJwks, now: () => now, clockToleranceSeconds: 0 });
  assertFails(await strict.verify(await signToken(rsa, claims({ exp: nowSeconds - 1 })), signers), 'expired', /expired/);
});

test('a token without exp, or not valid yet, is invalid', async () => {
  const { verifier } = verifierWith(noJwks);
  const signers = [certSigner(rsa)];
  assertFails(await verifier.verify(await signToken(rsa, claims({ exp: undefined })), signers), 'invalid', /no exp claim/);
  assertFails(await verifier.verify(await signToken(rsa, claims({ nbf: nowSeconds + 60 })), signers), 'invalid', /not valid yet/);
  assertOk(await verifier.verify(await signToken(rsa, claims({ nbf: nowSeconds + 3 })), signers), 'alice');
});

test('a token from an issuer with no enabled signer is invalid', async () => {
  const { verifier } = verifierWith(noJwks);
  const token = await signToken(rsa, claims({ iss: 'https://evil.example.com' }));
  assertFails(await verifier.verify(token, [certSigner(rsa)]), 'invalid', /^no enabled signer for issuer "https:\/\/evil\.example\.com"$/);
  assertFails(await verifier.verify(await signToken(rsa, claims({ iss: undefined })), [certSigner(rsa)]), 'invalid', /no enabled signer/);
});

test('a disabled signer is ignored', async () => {
  const { verifier } = verifierWith(noJwks);
  const token = await signToken(rsa, claims());
  assertFails(await verifier.verify(token, [certSigner(rsa, { enabled: false })]), 'invalid', /no enabled signer for issuer/);
  assertOk(await verifier.verify(token, [certSigner(rsa, { enabled: false, id: 'old' }), certSigner(rsa, { id: 'new' })]), 'alice');
});

test('the audience must include the signer audience when the signer has one', async () => {
  const { verifier } = verifierWith(noJwks);
  assertFails(await verifier.verify(await signToken(rsa, claims({ aud: 'someone-else' })), [certSigner(rsa)]), 'invalid', /audience/);
  assertFails(await verifier.verify(await signToken(rsa, claims({ aud: undefined })), [certSigner(rsa)]), 'invalid', /no aud claim/);
  assertOk(await verifier.verify(await signToken(rsa, claims({ aud: ['other', audience] })), [certSigner(rsa)]), 'alice');
  assertOk(await verifier.verify(await signToken(rsa, claims({ aud: 'anyone' })), [certSigner(rsa, { audience: null })]), 'alice');
});

test('a tampered payload or signature is invalid', async () => {
  const { verifier } = verifierWith(noJwks);
  const token = await signToken(ec, claims());
  const [header, , signature] = token.split('.');
  const forged = `${header}.${base64url(claims({ sub: 'admin' }))}.${signature}`;
  assertFails(await verifier.verify(forged, [certSigner(ec)]), 'invalid', /signature does not verify/);
  assertFails(await verifier.verify(tamperSignature(token), [certSigner(ec)]), 'invalid', /signature does not verify/);
  assertFails(await verifier.verify(await signToken(rsa, claims()), [certSigner(ec, { kid: null })]), 'invalid', /algorithm "RS256" is not allowed for the signer's ec prime256v1 key/);
});

test('a kid the signer does not know is invalid and named', async () => {
  server.serveJson({ keys: [rsa.jwk] });
  const { verifier } = verifierWith();
  const token = await signToken(rsa, claims(), { header: { kid: 'mystery-kid' } });
  assertFails(await verifier.verify(token, [jwksSigner()]), 'invalid', /unknown kid "mystery-kid" for algorithm "RS256"/);
  assertFails(await verifier.verify(await signToken(rsa, claims()), [certSigner(rsa, { kid: 'pinned' })]), 'invalid', /kid "rsa-1" does not match the signer kid "pinned"/);
});

test('several signers for one issuer: the one pinned to the token kid is used, else each is tried', async () => {
  const { verifier } = verifierWith(noJwks);
  const signers = [certSigner(rsa, { id: 'rsa-signer' }), certSigner(ec, { id: 'ec-signer' })];
  const byEc = await verifier.verify(await signToken(ec, claims()), signers);
  assertOk(byEc, 'alice');
  assert.equal(byEc.signer.id, 'ec-signer');
  // A signer pinned to the kid wins even over an earlier signer that would also verify.
  const pinnedFirst = await verifier.verify(await signToken(ec, claims()), [certSigner(ec, { id: 'catch-all', kid: null }), certSigner(ec, { id: 'pinned' })]);
  assertOk(pinnedFirst, 'alice');
  assert.equal(pinnedFirst.signer.id, 'pinned');
  const unpinned = signers.map((s) => ({ ...s, kid: null }));
  const tried = await verifier.verify(await signToken(ec, claims(), { header: { kid: undefined } }), unpinned);
  assertOk(tried, 'alice');
  assert.equal(tried.signer.id, 'ec-signer');
  // The failure that got furthest (the signature held, the token expired) is the one reported.
  assertFails(await verifier.verify(await signToken(ec, claims({ exp: nowSeconds - 60 }), { header: { kid: undefined } }), unpinned), 'expired', /expired/);
});

test('a rotated key verifies after one refetch; a flood of unknown kids refetches at most once per interval', async () => {
  server.serveJson({ keys: [ec.jwk] });
  const { verifier, cacheClock } = verifierWith();
  const signers = [jwksSigner()];
  const start = server.requests;
  assertOk(await verifier.verify(await signToken(ec, claims()), signers), 'alice');
  assert.equal(server.requests - start, 1);

  cacheClock.advance(10_000);
  server.serveJson({ keys: [ec.jwk, rotated.jwk] }); // the issuer rotates in a new key
  assertOk(await verifier.verify(await signToken(rotated, claims()), signers), 'alice');
  assert.equal(server.requests - start, 2, 'exactly one refetch for the new kid');

  const flood = await Promise.all(
    Array.from({ length: 25 }, async (_, i) => verifier.verify(await signToken(rotated, claims(), { header: { kid: `forged-${i}` } }), signers)),
  );
  for (const result of flood) assertFails(result, 'invalid', /unknown kid "forged-\d+"/);
  assert.equal(server.requests - start, 2, 'no refetch within the interval');
  cacheClock.advance(10_000);
  await Promise.all(Array.from({ length: 5 }, async (_, i) => verifier.verify(await signToken(rotated, claims(), { header: { kid: `later-${i}` } }), signers)));
  assert.equal(server.requests - start, 3, 'one refetch per interval');
});

test('an alg none token is invalid', async () => {
  const { verifier } = verifierWith(noJwks);
  const unsigned = `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(claims())}.`;
  assertFails(await verifier.verify(unsigned, [certSigner(rsa, { kid: null })]), 'invalid', /algorithm "none" is not accepted/);
  server.serveJson({ keys: [rsa.jwk] });
  assertFails(await verifierWith().verifier.verify(unsigned, [jwksSigner()]), 'invalid', /algorithm "none" is not accepted/);
});

test('an HS256 token keyed with the signer public key is invalid (algorithm confusion)', async () => {
  const publicPem = rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const { verifier } = verifierWith(noJwks);
  for (const secret of [publicPem, rsa.certPem]) {
    const forged = await new SignJWT(claims({ sub: 'admin' })).setProtectedHeader({ alg: 'HS256', kid: rsa.kid }).sign(new TextEncoder().encode(secret));
    assertFails(await verifier.verify(forged, [certSigner(rsa)]), 'invalid', /algorithm "HS256" is not accepted/);
  }
  server.serveJson({ keys: [rsa.jwk] });
  const forged = await new SignJWT(claims({ sub: 'admin' })).setProtectedHeader({ alg: 'HS256', kid: rsa.kid }).sign(new TextEncoder().encode(publicPem));
  const start = server.requests;
  assertFails(await verifierWith().verifier.verify(forged, [jwksSigner()]), 'invalid', /algorithm "HS256" is not accepted/);
  assert.equal(server.requests, start, 'refused before any JWKS fetch');
});

test('a malformed token is reported as missing', async () => {
  const { verifier } = verifierWith(noJwks);
  const jwe = 'eyJhbGciOiJSU0EtT0FFUCIsImVuYyI6IkEyNTZHQ00ifQ.a.b.c.d';
  for (const token of ['', 'not-a-jwt', 'a.b.c', `${base64url({ alg: 'RS256' })}.${base64url(['array'])}.sig`, jwe]) {
    assertFails(await verifier.verify(token, [certSigner(rsa)]), 'missing', /not a compact JWS/);
  }
});

test('an unreachable or refused JWKS endpoint makes the token invalid, with the reason', async () => {
  server.respondWith((_request, response) => response.writeHead(500).end());
  assertFails(await verifierWith().verifier.verify(await signToken(rsa, claims()), [jwksSigner()]), 'invalid', /keys are unavailable: .*HTTP status 500/);
  const plain = [jwksSigner({ jwksEndpoint: server.url().replace('https:', 'http:') })];
  assertFails(await verifierWith().verifier.verify(await signToken(rsa, claims()), plain), 'invalid', /only https:\/\//);
});

test('a failure detail never contains the token', async () => {
  const { verifier } = verifierWith(noJwks);
  const token = await signToken(rsa, claims({ exp: nowSeconds - 600 }));
  const signature = token.split('.')[2]!;
  for (const candidate of [token, tamperSignature(token)]) {
    const result = await verifier.verify(candidate, [certSigner(rsa)]);
    assert.equal(result.ok, false);
    if (!result.ok) assert.ok(!result.detail.includes(signature.slice(0, 20)) && !result.detail.includes(token.split('.')[1]!.slice(0, 20)));
  }
});

test('a clock tolerance beyond small skew is refused at construction', () => {
  assert.throws(() => new ExtJwtVerifier({ jwks: noJwks, clockToleranceSeconds: 3600 }), RangeError);
  assert.throws(() => new ExtJwtVerifier({ jwks: noJwks, clockToleranceSeconds: -1 }), RangeError);
});
