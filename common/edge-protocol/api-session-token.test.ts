import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isJwtShaped, maxApiSessionTokenLength } from './api-session-token.ts';

test('a JWT is told from a legacy session token by its shape alone', () => {
  assert.equal(isJwtShaped('eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl'), true);
  assert.equal(isJwtShaped('8f4e2a4e-35a2-4ae1-9f70-51b7a0ab2f4c'), false, 'a legacy token (a UUID)');
  assert.equal(isJwtShaped('a.b'), false, 'two parts');
  assert.equal(isJwtShaped('a.b.c.d'), false, 'four parts');
  assert.equal(isJwtShaped('a+b.c.d'), false, 'not base64url');
  assert.equal(isJwtShaped(`a.${'b'.repeat(maxApiSessionTokenLength)}.c`), false, 'too long');
});
