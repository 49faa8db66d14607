import assert from 'node:assert/strict';
import { createSecretKey, generateKeyPairSync } from 'node:crypto';
import { test } from 'node:test';
import { acceptedAlgorithms, algorithmsForKey } from './key-algorithms.ts';

test('each public key type allows only the algorithms made for it', () => {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey;
  assert.deepEqual(algorithmsForKey(rsa), ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512']);
  const curves = { 'P-256': ['ES256'], 'P-384': ['ES384'], 'P-521': ['ES512'] };
  for (const [namedCurve, expected] of Object.entries(curves)) {
    assert.deepEqual(algorithmsForKey(generateKeyPairSync('ec', { namedCurve }).publicKey), expected, namedCurve);
  }
  assert.deepEqual(algorithmsForKey(generateKeyPairSync('ed25519').publicKey), ['EdDSA', 'Ed25519']);
});

test('secret, private, key-agreement and unlisted-curve keys allow nothing', () => {
  assert.deepEqual(algorithmsForKey(createSecretKey(Buffer.alloc(32, 1))), []);
  assert.deepEqual(algorithmsForKey(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey), []);
  assert.deepEqual(algorithmsForKey(generateKeyPairSync('x25519').publicKey), []);
  assert.deepEqual(algorithmsForKey(generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).publicKey), []);
});

test('no HMAC algorithm and no none is ever accepted', () => {
  for (const alg of ['none', 'HS256', 'HS384', 'HS512', 'RSA-OAEP', '']) assert.equal(acceptedAlgorithms.has(alg), false, alg);
});
