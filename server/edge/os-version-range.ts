// OS version ranges as an OS posture check states them and the real controller compares them: semantic versions
// (MAJOR.MINOR.PATCH, optional -prerelease, +build ignored), comparators `<`, `<=`, `>`, `>=`, `=`/`==` (or none),
// `!`/`!=`; space-separated comparators must all hold (AND), `||` separates alternatives (OR); `x` wildcards
// (`10.x`, `10.0.x`) stand for the span they cover. A reported version that is not a full semantic version
// (`10.0`) matches no range. Pure.

export interface SemanticVersion {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  readonly prerelease: readonly string[];
}

type Comparator = (version: SemanticVersion) => boolean;

/** A parsed range: true when a version falls in it. */
export type VersionRange = (version: SemanticVersion) => boolean;

const numeric = '(0|[1-9]\\d*)';
const identifier = '[0-9A-Za-z-]+';
const versionPattern = new RegExp(`^${numeric}\\.${numeric}\\.${numeric}(?:-(${identifier}(?:\\.${identifier})*))?(?:\\+${identifier}(?:\\.${identifier})*)?$`);

export function parseVersion(text: string): SemanticVersion | undefined {
  const match = versionPattern.exec(text.trim());
  if (!match) return undefined;
  const [major, minor, patch] = [match[1], match[2], match[3]].map(Number) as [number, number, number];
  if (![major, minor, patch].every(Number.isSafeInteger)) return undefined;
  const prerelease = match[4] ? match[4].split('.') : [];
  // Numeric prerelease identifiers must not have leading zeroes (semver 2.0.0, item 9).
  if (prerelease.some((part) => /^\d+$/.test(part) && part.length > 1 && part.startsWith('0'))) return undefined;
  return { major, minor, patch, prerelease };
}

export function compareVersions(a: SemanticVersion, b: SemanticVersion): number {
  for (const key of ['major', 'minor', 'patch'] as const) if (a[key] !== b[key]) return a[key] < b[key] ? -1 : 1;
  // A prerelease comes before its release; identifiers compare numerically when both are numbers, else as text.
  if (a.prerelease.length === 0 && b.prerelease.length === 0) return 0;
  if (a.prerelease.length === 0) return 1;
  if (b.prerelease.length === 0) return -1;
  for (let i = 0; i < Math.min(a.prerelease.length, b.prerelease.length); i++) {
    const [x, y] = [a.prerelease[i]!, b.prerelease[i]!];
    if (x === y) continue;
    const [xn, yn] = [/^\d+$/.test(x), /^\d+$/.test(y)];
    if (xn && yn) return Number(x) < Number(y) ? -1 : 1;
    if (xn !== yn) return xn ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return Math.sign(a.prerelease.length - b.prerelease.length);
}

/** The range, or an error message saying what is wrong with it. */
export function parseVersionRange(text: string): VersionRange | { readonly error: string } {
  const alternatives = text.split('||').map((part) => part.trim());
  const parsed: Comparator[][] = [];
  for (const alternative of alternatives) {
    const tokens = alternative.split(/\s+/).filter((token) => token !== '');
    if (tokens.length === 0) return { error: `empty range in '${text}'` };
    const comparators: Comparator[] = [];
    for (const token of tokens) {
      const comparator = parseComparator(token);
      if ('error' in comparator) return comparator;
      comparators.push(...comparator.all);
    }
    parsed.push(comparators);
  }
  return (version) => parsed.some((comparators) => comparators.every((holds) => holds(version)));
}

function parseComparator(token: string): { readonly all: Comparator[] } | { readonly error: string } {
  const match = /^(<=|>=|==|!=|<|>|=|!)?(.+)$/.exec(token);
  const operator = match?.[1] ?? '=';
  const body = match?.[2] ?? '';
  const wildcard = /^(0|[1-9]\d*)\.(?:(0|[1-9]\d*)\.)?[xX*]$/.exec(body);
  if (wildcard) {
    // `10.x` covers [10.0.0, 11.0.0); `10.0.x` covers [10.0.0, 10.1.0).
    const major = Number(wildcard[1]);
    const minor = wildcard[2] === undefined ? undefined : Number(wildcard[2]);
    const lower: SemanticVersion = { major, minor: minor ?? 0, patch: 0, prerelease: [] };
    const upper: SemanticVersion = minor === undefined ? { major: major + 1, minor: 0, patch: 0, prerelease: [] } : { major, minor: minor + 1, patch: 0, prerelease: [] };
    const atLeast: Comparator = (v) => compareVersions(v, lower) >= 0;
    const below: Comparator = (v) => compareVersions(v, upper) < 0;
    switch (operator) {
      case '=': case '==': return { all: [atLeast, below] };
      case '!': case '!=': return { all: [(v) => !(atLeast(v) && below(v))] };
      case '>=': return { all: [atLeast] };
      case '>': return { all: [(v) => !below(v)] };
      case '<': return { all: [(v) => !atLeast(v)] };
      case '<=': return { all: [below] };
    }
  }
  const bound = parseVersion(body);
  if (!bound) return { error: `'${token}' is not a version comparison (a semantic version MAJOR.MINOR.PATCH after <, <=, >, >=, =, !=)` };
  const compare = (v: SemanticVersion) => compareVersions(v, bound);
  switch (operator) {
    case '<': return { all: [(v) => compare(v) < 0] };
    case '<=': return { all: [(v) => compare(v) <= 0] };
    case '>': return { all: [(v) => compare(v) > 0] };
    case '>=': return { all: [(v) => compare(v) >= 0] };
    case '!': case '!=': return { all: [(v) => compare(v) !== 0] };
    default: return { all: [(v) => compare(v) === 0] };
  }
}
