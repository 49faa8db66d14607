import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bearerTokens } from './bearer-tokens.ts';

test('a Bearer header yields its token, whatever the case of the scheme', () => {
  assert.deepEqual(bearerTokens('Bearer aaa.bbb.ccc'), ['aaa.bbb.ccc']);
  assert.deepEqual(bearerTokens('bearer aaa.bbb.ccc'), ['aaa.bbb.ccc']);
  assert.deepEqual(bearerTokens('BEARER   aaa.bbb.ccc  '), ['aaa.bbb.ccc']);
});

test('no header, empty values and other schemes yield no tokens', () => {
  assert.deepEqual(bearerTokens(undefined), []);
  assert.deepEqual(bearerTokens(''), []);
  assert.deepEqual(bearerTokens([]), []);
  assert.deepEqual(bearerTokens('Bearer'), []);
  assert.deepEqual(bearerTokens('Bearer   '), []);
  assert.deepEqual(bearerTokens('Basic dXNlcjpwYXNz'), []);
  assert.deepEqual(bearerTokens('Bearertoken'), []);
  assert.deepEqual(bearerTokens('Bearer two words'), []);
});

test('repeated headers yield their tokens in order, skipping the other schemes', () => {
  assert.deepEqual(bearerTokens(['Bearer first', 'Basic dXNlcjpwYXNz', '', 'bearer second']), ['first', 'second']);
});

test('a header folded by a proxy (comma-joined) yields each token', () => {
  assert.deepEqual(bearerTokens('Bearer first, Bearer second'), ['first', 'second']);
});

test('at most three tokens are returned, the first three', () => {
  assert.deepEqual(bearerTokens(['Bearer a', 'Bearer b', 'Bearer c', 'Bearer d']), ['a', 'b', 'c']);
  assert.deepEqual(bearerTokens('Bearer a, Bearer b, Bearer c, Bearer d'), ['a', 'b', 'c']);
});
