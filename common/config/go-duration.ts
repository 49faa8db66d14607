// Go `time.ParseDuration` syntax, because the config files are meant to be interchangeable with OpenZiti's.
// Values are milliseconds (fractional below 1ms); arithmetic is done in BigInt nanoseconds like Go, so
// `0.1s` is exactly 100 and out-of-range values are rejected instead of silently losing precision.

const NS_PER_UNIT: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  'µs': 1_000n, // U+00B5 micro sign
  'μs': 1_000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const MAX_NS = 9_223_372_036_854_775_807n; // Go's time.Duration is an int64 of nanoseconds
const NS_PER_MS = 1_000_000n;
const COMPONENT = /^(\d*)(?:\.(\d*))?([^\d.]+)/;

/** Parses Go duration text (`1m30s`, `1.5h`, `500ms`, `0`) to milliseconds; undefined when the text is invalid. */
export function parseGoDuration(text: string): number | undefined {
  let rest = text;
  let negative = false;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    negative = rest.startsWith('-');
    rest = rest.slice(1);
  }
  if (rest === '0') return 0; // the only unit-less value Go accepts
  if (rest === '') return undefined;

  let total = 0n;
  while (rest !== '') {
    const match = COMPONENT.exec(rest);
    if (!match) return undefined;
    const [whole, intDigits = '', fracDigits, unit = ''] = match;
    if (intDigits === '' && (fracDigits === undefined || fracDigits === '')) return undefined; // ".s" or "s"
    const unitNs = NS_PER_UNIT[unit];
    if (unitNs === undefined) return undefined;
    let ns = BigInt(intDigits === '' ? '0' : intDigits) * unitNs;
    if (fracDigits) ns += (BigInt(fracDigits) * unitNs) / 10n ** BigInt(fracDigits.length); // truncates like Go
    total += ns;
    if (total > MAX_NS) return undefined;
    rest = rest.slice(whole.length);
  }
  const ms = Number(total / NS_PER_MS) + Number(total % NS_PER_MS) / 1e6;
  return negative && ms !== 0 ? -ms : ms;
}

/** The shortest Go-like text for a millisecond duration: `15s`, `1m30s`, `500ms`, `2h`, `1.5s`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) throw new RangeError(`not a finite duration: ${ms}`);
  if (ms < 0) return `-${formatDuration(-ms)}`;
  const totalNs = BigInt(Math.round(ms * 1e6));
  if (totalNs === 0n) return '0s';
  if (totalNs < 1_000n) return `${totalNs}ns`;
  if (totalNs < 1_000_000n) return `${decimal(totalNs, 1_000n)}µs`;
  if (totalNs < 1_000_000_000n) return `${decimal(totalNs, 1_000_000n)}ms`;

  const hours = totalNs / 3_600_000_000_000n;
  const minutes = (totalNs % 3_600_000_000_000n) / 60_000_000_000n;
  const secondsNs = totalNs % 60_000_000_000n;
  let text = '';
  if (hours > 0n) text += `${hours}h`;
  if (minutes > 0n) text += `${minutes}m`;
  if (secondsNs > 0n) text += `${decimal(secondsNs, 1_000_000_000n)}s`;
  return text;
}

/** `value / unit` as a decimal without trailing zeros (`1500n, 1000n` → `1.5`). */
function decimal(value: bigint, unit: bigint): string {
  const whole = value / unit;
  const fraction = value % unit;
  if (fraction === 0n) return `${whole}`;
  const width = unit.toString().length - 1;
  return `${whole}.${fraction.toString().padStart(width, '0').replace(/0+$/, '')}`;
}
