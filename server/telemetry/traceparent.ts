// W3C Trace Context on the wire (`traceparent`, version 00, and `tracestate` carried as is): how a span's context
// travels in a forwarded write between controllers and arrives from HTTP clients that trace their own requests.
// Pure: text in, span context out, and back.
import { createTraceState, TraceFlags, type SpanContext } from '@opentelemetry/api';

const header = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const zeroTraceId = '0'.repeat(32);
const zeroSpanId = '0'.repeat(16);

/** The `traceparent` of a span context: version 00 and only the sampled flag, as the spec defines for 00. */
export function formatTraceparent(context: SpanContext): string {
  return `00-${context.traceId}-${context.spanId}-${context.traceFlags & TraceFlags.SAMPLED ? '01' : '00'}`;
}

/**
 * A remote span context from a `traceparent` (and its `tracestate`), or undefined when the header is absent,
 * repeated or malformed: version ff, all-zero ids, and extra fields on version 00 are refused; a later version is
 * read by its first four fields, as the spec asks.
 */
export function parseTraceparent(traceparent: unknown, tracestate?: unknown): SpanContext | undefined {
  if (typeof traceparent !== 'string') return undefined;
  const match = header.exec(traceparent.trim());
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match as unknown as [string, string, string, string, string, string | undefined];
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (traceId === zeroTraceId || spanId === zeroSpanId) return undefined;
  return {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16) & TraceFlags.SAMPLED,
    isRemote: true,
    ...(typeof tracestate === 'string' && tracestate !== '' ? { traceState: createTraceState(tracestate) } : {}),
  };
}
