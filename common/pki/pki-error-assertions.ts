// Test support: an assert.rejects/throws predicate that checks for a PkiError with a given code and message.
import assert from 'node:assert/strict';
import { PkiError, type PkiErrorCode } from './pki-error.ts';

export function isPkiError(code: PkiErrorCode, message?: RegExp): (error: unknown) => boolean {
  return (error) => {
    assert.ok(error instanceof PkiError, `expected a PkiError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    if (message) assert.match(error.message, message);
    return true;
  };
}
