// Authorization requests and codes: PKCE S256 as an independent client computes it (openid-client), a code good once, for
// a minute, only for its client, redirect URI and verifier; requests bounded in number and time. Redirect URIs match
// the client's globs exactly (any port where the glob says so, nothing else).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { calculatePKCECodeChallenge, randomPKCECodeVerifier } from 'openid-client';
import { ManualClock } from '../../common/time/clock.ts';
import { AuthRequests, pkceMatches, TooManyAuthRequests } from './auth-requests.ts';
import { defaultRedirectUris, matchesRedirectUri } from './oidc-clients.ts';

const verifier = randomPKCECodeVerifier();
const challenge = await calculatePKCECodeChallenge(verifier);
const params = { clientId: 'openziti', redirectUri: 'http://localhost:20314/auth/callback', scopes: ['openid'], codeChallenge: challenge, configTypes: [], remoteAddress: '127.0.0.1:1' };

test('PKCE S256: the challenge a relying party computes, and verifiers outside 43-128 unreserved characters refused', () => {
  assert.equal(pkceMatches(challenge, verifier), true);
  assert.equal(pkceMatches(challenge, `${verifier.slice(0, -1)}${verifier.endsWith('A') ? 'B' : 'A'}`), false);
  assert.equal(pkceMatches(challenge, 'short'), false);
  assert.equal(pkceMatches(challenge, `${verifier}!`), false);
});

test('a code is redeemed once, within its minute, by its client, redirect URI and verifier only', () => {
  const clock = new ManualClock(0);
  const requests = new AuthRequests(clock, { requestTtlMs: 300_000, codeTtlMs: 60_000, maxPending: 3, maxPendingPerAddress: 3 });
  const codeOf = () => requests.issueCode(requests.create(params));
  const first = codeOf();
  assert.ok(requests.redeem(first, 'openziti', params.redirectUri, verifier).ok);
  assert.deepEqual(requests.redeem(first, 'openziti', params.redirectUri, verifier), { ok: false, reason: 'unknown or used authorization code' });
  assert.match(String((requests.redeem(codeOf(), 'native', params.redirectUri, verifier) as { reason: string }).reason), /another client/);
  assert.match(String((requests.redeem(codeOf(), 'openziti', 'http://localhost:1/auth/callback', verifier) as { reason: string }).reason), /redirect_uri/);
  const wrongVerifier = codeOf();
  assert.match(String((requests.redeem(wrongVerifier, 'openziti', params.redirectUri, 'x'.repeat(43)) as { reason: string }).reason), /code_verifier/);
  assert.equal(requests.redeem(wrongVerifier, 'openziti', params.redirectUri, verifier).ok, false, 'a code presented wrongly is spent');
  const late = codeOf();
  clock.advance(60_001);
  assert.match(String((requests.redeem(late, 'openziti', params.redirectUri, verifier) as { reason: string }).reason), /expired/);
});

test('pending requests expire and are bounded; a request turned into a code is no longer pending', () => {
  const clock = new ManualClock(0);
  const requests = new AuthRequests(clock, { requestTtlMs: 300_000, codeTtlMs: 60_000, maxPending: 2, maxPendingPerAddress: 2 });
  const a = requests.create({ ...params, remoteAddress: '10.0.0.1:1' });
  requests.create({ ...params, remoteAddress: '10.0.0.2:1' });
  assert.throws(() => requests.create({ ...params, remoteAddress: '10.0.0.3:1' }), TooManyAuthRequests);
  requests.issueCode(a);
  assert.equal(requests.get(a.id), undefined);
  requests.create(params);
  clock.advance(300_001);
  assert.equal(requests.pending, 2);
  requests.create(params);
  assert.equal(requests.pending, 1, 'expired requests were swept');
  assert.notEqual(a.apiSessionId, requests.create(params).apiSessionId, 'each request its own API session id');
});

test('redirect URIs: loopback on any port at /auth/callback, nothing else', () => {
  for (const ok of ['http://localhost:20314/auth/callback', 'http://127.0.0.1:8080/auth/callback', 'https://localhost:1/auth/callback', 'http://[::1]:9/auth/callback', 'openziti://auth/callback']) {
    assert.equal(matchesRedirectUri(defaultRedirectUris, ok), true, ok);
  }
  for (const bad of ['http://evil.example/auth/callback', 'http://localhost:20314/auth/callback/x', 'http://localhost:20314/auth/callback?x=1', 'http://localhost:20314/auth/callback#f', 'http://localhost.evil.example:1/auth/callback', 'http://localhost:1/x/auth/callback', '']) {
    assert.equal(matchesRedirectUri(defaultRedirectUris, bad), false, bad);
  }
});

test('one client address holds at most its share of pending requests: its oldest go first, others are untouched', () => {
  const clock = new ManualClock(0);
  const requests = new AuthRequests(clock, { requestTtlMs: 300_000, codeTtlMs: 60_000, maxPending: 10, maxPendingPerAddress: 3 });
  const other = requests.create({ ...params, remoteAddress: '10.0.0.9:4000' });
  const flood = Array.from({ length: 50 }, (_, n) => requests.create({ ...params, remoteAddress: `10.0.0.1:${5000 + n}` }));
  assert.equal(requests.pending, 4, 'three of the flood and the other client\'s');
  assert.ok(requests.get(other.id), 'another client\'s login survives the flood');
  assert.deepEqual(flood.slice(-3).map((request) => Boolean(requests.get(request.id))), [true, true, true]);
  assert.equal(requests.get(flood[0]!.id), undefined);
  const v6 = Array.from({ length: 5 }, () => requests.create({ ...params, remoteAddress: '[::1]:7000' }));
  assert.equal(v6.filter((request) => requests.get(request.id)).length, 3);
});
