import assert from 'node:assert/strict';
import { test } from 'node:test';
import { maxAttempts, retryAfterMs, retryDelayAfter } from './router-simulator-retry.ts';

const now = Date.UTC(2026, 10, 30, 3, 0, 0);

test('a busy answer with Retry-After is tried again after it, in seconds or as an HTTP date', () => {
  assert.equal(retryDelayAfter({ status: 503, retryAfter: '2' }, 1, now), 2000);
  assert.equal(retryDelayAfter({ status: 429, retryAfter: new Date(now + 7000).toUTCString() }, 1, now), 7000);
  assert.equal(retryAfterMs(new Date(now - 5000).toUTCString(), now), 0);
  assert.equal(retryAfterMs('soon', now), undefined);
});

test('a busy answer without Retry-After backs off more with each attempt; other answers are not tried again', () => {
  assert.deepEqual([1, 2, 3].map((attempt) => retryDelayAfter({ status: 503 }, attempt, now)), [500, 1000, 2000]);
  for (const status of [200, 201, 400, 401, 404, 500]) assert.equal(retryDelayAfter({ status }, 1, now), undefined);
});

test('never past the last attempt, nor a wait longer than 30 s', () => {
  assert.equal(retryDelayAfter({ status: 503, retryAfter: '1' }, maxAttempts, now), undefined);
  assert.equal(retryDelayAfter({ status: 503, retryAfter: '31' }, 1, now), undefined);
  assert.equal(retryDelayAfter({ status: 503 }, maxAttempts - 1, now), 8000);
});
