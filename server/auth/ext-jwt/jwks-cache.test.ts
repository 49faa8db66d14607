import assert from 'node:assert/strict';
import { KeyObject } from 'node:crypto';
import { after, before, test } from 'node:test';
import { ManualClock } from '../../../common/time/clock.ts';
import { JwksCache, JwksFetchError, type JwksCacheOptions } from './jwks-cache.ts';
import { nonPublicKind } from './jwks-address-policy.ts';
import { startJwksServer, testJwksHostname, type JwksTestServer } from './jwks-test-server.ts';
import { makeSigningKey, type TestSigningKey } from './test-signing-keys.ts';

let server: JwksTestServer;
let rsa: TestSigningKey;
let ec: TestSigningKey;

before(async () => {
  [server, rsa, ec] = await Promise.all([startJwksServer(), makeSigningKey('rsa', 'rsa-1'), makeSigningKey('ec', 'ec-1')]);
});
after(() => server.close());

function cacheWith(options: JwksCacheOptions = {}): JwksCache {
  // The test server is on 127.0.0.1: these tests opt in to private addresses, as an operator would for such an issuer.
  return new JwksCache({ trustedCaPems: [server.caPem], allowPrivateAddresses: true, ...options });
}

function samePublicKey(actual: unknown, expected: TestSigningKey): void {
  assert.ok(actual instanceof KeyObject, 'expected a KeyObject');
  assert.ok(actual.equals(expected.publicKey), 'expected the signing key\'s public key');
}

async function rejectsWith(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof JwksFetchError, `expected JwksFetchError, got ${String(error)}`);
    assert.match(error.message, pattern);
    return true;
  });
}

test('a key is found by kid in a JWKS fetched over HTTPS from a CA the admin trusts', async () => {
  server.serveJson({ keys: [rsa.jwk, ec.jwk] });
  const cache = cacheWith();
  samePublicKey(await cache.keyFor(server.url(), 'ec-1', 'ES256'), ec);
  samePublicKey(await cache.keyFor(server.url(), 'rsa-1', 'RS256'), rsa);
});

test('a kid with a different alg than its JWK, or an unknown kid, finds no key', async () => {
  server.serveJson({ keys: [rsa.jwk] });
  const cache = cacheWith();
  assert.equal(await cache.keyFor(server.url(), 'rsa-1', 'ES256'), undefined);
  assert.equal(await cache.keyFor(server.url(), 'nobody', 'RS256'), undefined);
});

test('a token without kid gets the only key of a one-key set, and nothing from a larger set', async () => {
  server.serveJson({ keys: [rsa.jwk] });
  samePublicKey(await cacheWith().keyFor(server.url(), undefined, 'RS256'), rsa);
  server.serveJson({ keys: [rsa.jwk, ec.jwk] });
  assert.equal(await cacheWith().keyFor(server.url(), undefined, 'RS256'), undefined);
});

test('a JWKS never supplies HMAC secrets, encryption keys or keys with private parts', async () => {
  const privateJwk = { ...rsa.privateKey.export({ format: 'jwk' }), kid: 'leaked', use: 'sig' };
  server.serveJson({
    keys: [
      { kty: 'oct', kid: 'hmac', k: Buffer.from('secret').toString('base64url'), alg: 'HS256' },
      { ...ec.jwk, kid: 'encryption', use: 'enc' },
      { ...ec.jwk, kid: 'wrap-only', use: undefined, key_ops: ['wrapKey'] },
      privateJwk,
      { kty: 'RSA', kid: 'garbage', n: 'AQAB' },
      rsa.jwk,
    ],
  });
  const cache = cacheWith();
  for (const kid of ['hmac', 'encryption', 'wrap-only', 'leaked', 'garbage']) {
    assert.equal(await cache.keyFor(server.url(), kid, undefined), undefined, kid);
  }
  samePublicKey(await cache.keyFor(server.url(), 'rsa-1', 'RS256'), rsa);
});

test('an http:// endpoint is refused without any request', async () => {
  const before = server.requests;
  await rejectsWith(cacheWith().keyFor(server.url().replace('https:', 'http:'), 'rsa-1', 'RS256'), /only https:\/\/ endpoints/);
  await rejectsWith(cacheWith().keyFor('not a url', 'rsa-1', 'RS256'), /not a valid URL/);
  assert.equal(server.requests, before);
});

test('a server whose CA is not trusted is refused', async () => {
  server.serveJson({ keys: [rsa.jwk] });
  await rejectsWith(new JwksCache({ allowPrivateAddresses: true }).keyFor(server.url(), 'rsa-1', 'RS256'), /certificate/i);
});

test('an HTTP error status fails the fetch and names the status', async () => {
  server.respondWith((_request, response) => response.writeHead(500).end('boom'));
  await rejectsWith(cacheWith().keyFor(server.url(), 'rsa-1', 'RS256'), /HTTP status 500/);
});

test('a body that is not JSON, or JSON without keys, fails the fetch', async () => {
  server.respondWith((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<html>login</html>'));
  await rejectsWith(cacheWith().keyFor(server.url(), 'rsa-1', 'RS256'), /not JSON/);
  server.serveJson({ items: [rsa.jwk] });
  await rejectsWith(cacheWith().keyFor(server.url(), 'rsa-1', 'RS256'), /no "keys" array/);
  server.serveJson({ keys: [{ kty: 'oct', k: 'c2VjcmV0' }] });
  await rejectsWith(cacheWith().keyFor(server.url(), 'rsa-1', 'RS256'), /no usable signature keys/);
});

test('a body over the size limit fails the fetch, declared or streamed', async () => {
  const big = JSON.stringify({ keys: [rsa.jwk], padding: 'x'.repeat(10_000) });
  server.respondWith((_request, response) => response.writeHead(200, { 'content-length': Buffer.byteLength(big) }).end(big));
  await rejectsWith(cacheWith({ maxBytes: 4096 }).keyFor(server.url(), 'rsa-1', 'RS256'), /too large/);
  server.respondWith((_request, response) => {
    response.writeHead(200); // chunked: no length announced
    for (let i = 0; i < 10; i++) response.write('x'.repeat(1000));
    response.end();
  });
  await rejectsWith(cacheWith({ maxBytes: 4096 }).keyFor(server.url(), 'rsa-1', 'RS256'), /too large/);
});

test('a server that never answers fails the fetch at the timeout', async () => {
  server.respondWith(() => {});
  const started = Date.now();
  await rejectsWith(cacheWith({ fetchTimeoutMs: 150 }).keyFor(server.url(), 'rsa-1', 'RS256'), /timed out after 150 ms/);
  assert.ok(Date.now() - started < 1000);
});

test('the set is cached for the TTL, then fetched again', async () => {
  server.serveJson({ keys: [rsa.jwk] });
  const clock = new ManualClock();
  const cache = cacheWith({ now: () => clock.now(), ttlMs: 60_000 });
  const start = server.requests;
  await cache.keyFor(server.url(), 'rsa-1', 'RS256');
  clock.advance(59_999);
  await cache.keyFor(server.url(), 'rsa-1', 'RS256');
  assert.equal(server.requests - start, 1);
  clock.advance(1);
  await cache.keyFor(server.url(), 'rsa-1', 'RS256');
  assert.equal(server.requests - start, 2);
  cache.clear();
  await cache.keyFor(server.url(), 'rsa-1', 'RS256');
  assert.equal(server.requests - start, 3);
});

test('concurrent lookups share one fetch', async () => {
  server.serveJson({ keys: [rsa.jwk, ec.jwk] });
  const cache = cacheWith();
  const start = server.requests;
  const keys = await Promise.all(Array.from({ length: 10 }, (_, i) => cache.keyFor(server.url(), i % 2 ? 'rsa-1' : 'ec-1', undefined)));
  assert.equal(server.requests - start, 1);
  assert.ok(keys.every((key) => key !== undefined));
});

test('an unknown kid refetches at once, at most once per interval, so a rotated key is found', async () => {
  server.serveJson({ keys: [rsa.jwk] });
  const clock = new ManualClock();
  const cache = cacheWith({ now: () => clock.now(), minRefetchIntervalMs: 10_000 });
  const start = server.requests;
  await cache.keyFor(server.url(), 'rsa-1', 'RS256');

  clock.advance(10_000);
  server.serveJson({ keys: [ec.jwk] }); // the issuer rotates to a new key
  samePublicKey(await cache.keyFor(server.url(), 'ec-1', 'ES256'), ec);
  assert.equal(server.requests - start, 2, 'one refetch for the new kid');

  // A flood of made-up kids, sequential and concurrent, costs no further fetch within the interval.
  for (let i = 0; i < 20; i++) assert.equal(await cache.keyFor(server.url(), `bogus-${i}`, 'ES256'), undefined);
  await Promise.all(Array.from({ length: 20 }, (_, i) => cache.keyFor(server.url(), `flood-${i}`, 'ES256')));
  assert.equal(server.requests - start, 2);

  clock.advance(10_000);
  assert.equal(await cache.keyFor(server.url(), 'bogus-again', 'ES256'), undefined);
  await Promise.all(Array.from({ length: 20 }, (_, i) => cache.keyFor(server.url(), `flood-again-${i}`, 'ES256')));
  assert.equal(server.requests - start, 3, 'one more refetch once the interval has passed');
});

test('when a refresh fails, the cached set keeps serving known kids and the failure is reported', async () => {
  server.serveJson({ keys: [rsa.jwk] });
  const clock = new ManualClock();
  const failures: JwksFetchError[] = [];
  const cache = cacheWith({ now: () => clock.now(), ttlMs: 60_000, onFetchError: (error) => failures.push(error) });
  await cache.keyFor(server.url(), 'rsa-1', 'RS256');

  server.respondWith((_request, response) => response.writeHead(503).end());
  clock.advance(60_000);
  samePublicKey(await cache.keyFor(server.url(), 'rsa-1', 'RS256'), rsa);
  assert.equal(failures.length, 1);
  assert.match(failures[0]!.message, /HTTP status 503/);
  // A kid missing from the stale set cannot be ruled out, so the fetch failure is what the caller hears.
  await rejectsWith(cache.keyFor(server.url(), 'rsa-2', 'RS256'), /HTTP status 503/);
});

test('a failed first fetch is not retried on every lookup within the interval', async () => {
  server.respondWith((_request, response) => response.writeHead(500).end());
  const clock = new ManualClock();
  const cache = cacheWith({ now: () => clock.now(), minRefetchIntervalMs: 10_000 });
  const start = server.requests;
  await rejectsWith(cache.keyFor(server.url(), 'rsa-1', 'RS256'), /HTTP status 500/);
  await rejectsWith(cache.keyFor(server.url(), 'rsa-1', 'RS256'), /HTTP status 500/);
  assert.equal(server.requests - start, 1);

  server.serveJson({ keys: [rsa.jwk] });
  clock.advance(10_000);
  samePublicKey(await cache.keyFor(server.url(), 'rsa-1', 'RS256'), rsa);
  assert.equal(server.requests - start, 2);
});

test('bad options are refused at construction', () => {
  assert.throws(() => new JwksCache({ ttlMs: -1 }), RangeError);
  assert.throws(() => new JwksCache({ maxBytes: 0 }), RangeError);
  assert.throws(() => new JwksCache({ fetchTimeoutMs: Number.NaN }), RangeError);
});

test('by default a JWKS endpoint on a loopback, link-local or private address is refused before anything is sent to it', async () => {
  server.serveJson({ keys: [rsa.jwk] });
  const before = server.requests;
  const port = new URL(server.url()).port;
  const errors: JwksFetchError[] = [];
  const cache = new JwksCache({ trustedCaPems: [server.caPem], onFetchError: (error) => errors.push(error) });
  await rejectsWith(cache.keyFor(server.url(), 'rsa-1', 'RS256'), /127\.0\.0\.1 is a loopback address; JWKS endpoints must be public unless edge\.extJwt\.allowPrivateJwksAddresses is true/);
  // A name is resolved first and every address it has is checked: one private answer is enough to refuse it.
  const resolvesTo = (...addresses: string[]) => async () => addresses.map((address) => ({ address, family: (address.includes(':') ? 6 : 4) as 4 | 6 }));
  for (const [addresses, kind] of [
    [['127.0.0.1'], 'loopback'],
    [['203.0.113.9', '169.254.169.254'], 'link-local'],
    [['10.1.2.3'], 'private'],
    [['::ffff:192.168.1.1'], 'private'],
    [['fd00::1'], 'private'],
  ] as const) {
    const named = new JwksCache({ trustedCaPems: [server.caPem], resolve: resolvesTo(...addresses) });
    await rejectsWith(named.keyFor(`https://${testJwksHostname}:${port}/jwks.json`, 'rsa-1', 'RS256'), new RegExp(`${testJwksHostname} resolves to .*, a ${kind} address`));
  }
  assert.equal(server.requests, before, 'the private server never saw a request');
  assert.equal(errors.length, 1, 'the refusal is reported like any failed fetch');
  for (const address of ['8.8.8.8', '2001:4860:4860::8888', '203.0.113.9']) assert.equal(nonPublicKind(address), undefined, address);
  for (const address of ['0.0.0.0', '::', '::1', 'fe80::1', '100.64.0.1', '224.0.0.1', '172.31.255.255']) assert.notEqual(nonPublicKind(address), undefined, address);
});

test('allowPrivateAddresses lets a signer use a private issuer, and the connection goes to the address that was checked', async () => {
  server.serveJson({ keys: [rsa.jwk] });
  let lookups = 0;
  // A name no DNS knows, resolved once here: the fetch must connect to this answer, not ask again.
  const resolve = async () => {
    lookups++;
    return [{ address: '127.0.0.1', family: 4 as const }];
  };
  const endpoint = `https://${testJwksHostname}:${new URL(server.url()).port}/jwks.json`;
  samePublicKey(await new JwksCache({ trustedCaPems: [server.caPem], allowPrivateAddresses: true, resolve }).keyFor(endpoint, 'rsa-1', 'RS256'), rsa);
  assert.equal(lookups, 1);
  await rejectsWith(new JwksCache({ trustedCaPems: [server.caPem], resolve }).keyFor(endpoint, 'rsa-1', 'RS256'), /loopback/);
});
