// JSON whose text depends only on the value: object keys sorted at every level, two-space indent, a final newline.
// The SDK's builders decide the order they set keys in; sorting keeps a committed file stable across SDK releases
// and makes a diff show only what changed.

export function stableJson(value: unknown): string {
  return `${JSON.stringify(sortKeys(value), null, 2)}\n`;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const item = (value as Record<string, unknown>)[key];
    // JSON.stringify would drop these anyway; dropping them here keeps `undefined` out of arrays' objects too.
    if (item === undefined || typeof item === 'function') continue;
    sorted[key] = sortKeys(item);
  }
  return sorted;
}
