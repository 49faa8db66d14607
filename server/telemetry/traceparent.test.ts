import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TraceFlags } from '@opentelemetry/api';
import { formatTraceparent, parseTraceparent } from './traceparent.ts';

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const spanId = '00f067aa0ba902b7';

test('a traceparent round-trips a sampled span context and marks it remote', () => {
  const text = formatTraceparent({ traceId, spanId, traceFlags: TraceFlags.SAMPLED });
  assert.equal(text, `00-${traceId}-${spanId}-01`);
  const parsed = parseTraceparent(text);
  assert.deepEqual({ ...parsed }, { traceId, spanId, traceFlags: TraceFlags.SAMPLED, isRemote: true });
  assert.equal(formatTraceparent({ traceId, spanId, traceFlags: TraceFlags.NONE }), `00-${traceId}-${spanId}-00`);
});

test('tracestate rides along when present', () => {
  const parsed = parseTraceparent(`00-${traceId}-${spanId}-01`, 'vendor=abc,other=1');
  assert.equal(parsed?.traceState?.get('vendor'), 'abc');
  assert.equal(parsed?.traceState?.serialize(), 'vendor=abc,other=1');
});

test('malformed, repeated, all-zero and version-ff headers are refused; a later version is read by its first fields', () => {
  for (const bad of [
    undefined,
    '',
    [`00-${traceId}-${spanId}-01`],
    `00-${traceId}-${spanId}`,
    `00-${traceId.toUpperCase()}-${spanId}-01`,
    `00-${'0'.repeat(32)}-${spanId}-01`,
    `00-${traceId}-${'0'.repeat(16)}-01`,
    `ff-${traceId}-${spanId}-01`,
    `00-${traceId}-${spanId}-01-extra`,
  ]) {
    assert.equal(parseTraceparent(bad), undefined, String(bad));
  }
  assert.equal(parseTraceparent(`01-${traceId}-${spanId}-03-future`)?.traceFlags, TraceFlags.SAMPLED, 'unknown flags are dropped');
});
