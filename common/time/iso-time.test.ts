import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isoTime } from './iso-time.ts';

test('isoTime formats as Date.toISOString does, for remembered and new seconds alike', () => {
  const base = Date.UTC(2026, 10, 26, 12, 0, 0, 5);
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < 40; i++) assert.equal(isoTime(base + i * 137), new Date(base + i * 137).toISOString());
  }
  for (const ms of [0, 999, 1000, -1, -1001, Date.UTC(1969, 11, 31, 23, 59, 59, 999), 8.64e15, -8.64e15, Date.UTC(10000, 0, 1, 0, 0, 0, 1), 1.5e12 + 0.5]) {
    assert.equal(isoTime(ms), new Date(ms).toISOString(), String(ms));
  }
  for (const bad of [NaN, Infinity, 8.64e15 + 1]) assert.throws(() => isoTime(bad), RangeError);
});
