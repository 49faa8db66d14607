// Key paths name a place in a config document: `web[0].bindPoints[0].address`. Problems carry them as text and
// the YAML source maps them back to lines, so both directions live here.

export type PathSegment = string | number;
export type KeyPath = readonly PathSegment[];

const BARE_KEY = /^[\w$-]+$/;

/** `['web', 0, 'bindPoints', 0, 'address']` → `web[0].bindPoints[0].address`; odd keys are quoted: `events["a.b"]`. */
export function formatKeyPath(path: KeyPath): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (BARE_KEY.test(segment)) text += text === '' ? segment : `.${segment}`;
    else text += `[${JSON.stringify(segment)}]`;
  }
  return text;
}

/** The inverse of formatKeyPath; undefined for malformed text. The empty string is the root. */
export function parseKeyPath(text: string): PathSegment[] | undefined {
  const segments: PathSegment[] = [];
  const token = /\.?([\w$-]+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/y;
  let index = 0;
  while (index < text.length) {
    token.lastIndex = index;
    const match = token.exec(text);
    if (!match) return undefined;
    const [whole, bare, arrayIndex, quoted] = match;
    if (bare !== undefined) {
      if (whole.startsWith('.') === (index === 0)) return undefined; // a leading dot, or a missing one
      segments.push(bare);
    } else if (arrayIndex !== undefined) {
      segments.push(Number(arrayIndex));
    } else {
      segments.push(JSON.parse(quoted!) as string);
    }
    index += whole.length;
  }
  return segments;
}
