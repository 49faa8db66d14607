// ISO 8601 timestamps for responses, formatted by Date.toISOString at some 1.3 µs a call: a session's detail and
// expiry headers take three per request. Every timestamp within a second shares its text up to the milliseconds, so
// the text of the last few seconds asked is kept and only the milliseconds are appended.
const bySecond = new Map<number, string>();
const keep = 8;
const maxTime = 8.64e15;
const millis = Array.from({ length: 1000 }, (_, ms) => `${String(ms).padStart(3, '0')}Z`);

/** `new Date(ms).toISOString()`, for any time Date can hold. */
export function isoTime(time: number): string {
  const ms = Math.trunc(time); // as Date keeps it
  if (!(Math.abs(ms) <= maxTime)) return new Date(ms).toISOString(); // throws RangeError, as Date does
  const second = Math.floor(ms / 1000);
  let head = bySecond.get(second);
  if (head === undefined) {
    const full = new Date(ms).toISOString();
    // Years beyond 9999 or before 0 are written with a sign and six digits; the layout from the seconds on is the same.
    head = full.slice(0, -4);
    if (bySecond.size >= keep) bySecond.delete(bySecond.keys().next().value!);
    bySecond.set(second, head);
  }
  return head + millis[ms - second * 1000]!;
}
