// When the simulator tries an enrollment call again, as a patient operator's script would: only on an answer that
// says the controller is busy or between leaders (429, 503), after its Retry-After when it gives one (seconds or an
// HTTP date), else after a backoff that grows with each attempt; never past `maxAttempts`. Pure.

/** Attempts at one call, the first included. */
export const maxAttempts = 6;
/** The longest wait honoured, so that a far Retry-After fails the run instead of stalling it. */
const maxWaitMs = 30_000;

/** Milliseconds to wait before attempt `attempt + 1`, or undefined: do not try again. */
export function retryDelayAfter(answer: { readonly status: number; readonly retryAfter?: string | undefined }, attempt: number, nowMs: number): number | undefined {
  if (answer.status !== 429 && answer.status !== 503) return undefined;
  if (attempt >= maxAttempts) return undefined;
  const asked = retryAfterMs(answer.retryAfter, nowMs);
  if (asked !== undefined) return asked <= maxWaitMs ? asked : undefined;
  return Math.min(maxWaitMs, 500 * 2 ** (attempt - 1));
}

/** A Retry-After value in ms from now: delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
