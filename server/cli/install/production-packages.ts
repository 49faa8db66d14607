// The npm packages a release needs at run time, from package-lock.json (pure): the closure of the root's
// dependencies (optional and peer ones included) under Node's resolution rules, less the ones named as excluded
// (tsx and typescript: a release runs compiled JavaScript, never the TypeScript loader).

interface LockPackage {
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly optionalDependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly dev?: boolean;
  readonly link?: boolean;
}

export interface PackageLock {
  readonly packages: Readonly<Record<string, LockPackage>>;
}

/** Where `name` resolves from the package at `from` (a lock key such as `node_modules/a`, or `''` for the root). */
function resolveFrom(lock: PackageLock, from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const key = base === '' ? `node_modules/${name}` : `${base}/node_modules/${name}`;
    if (Object.hasOwn(lock.packages, key)) return key;
    if (base === '') return undefined;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut < 0 ? '' : base.slice(0, cut);
  }
}

/** The lock keys (`node_modules/...`) of every package the root's production dependencies need, sorted. */
export function productionPackages(lock: PackageLock, excluded: readonly string[]): string[] {
  const root = lock.packages[''];
  if (!root) throw new Error('package-lock.json has no root package (lockfileVersion 2 or 3 is needed)');
  const seen = new Set<string>();
  const visit = (from: string, names: readonly string[]) => {
    for (const name of names) {
      if (excluded.includes(name)) continue;
      const key = resolveFrom(lock, from, name);
      if (key === undefined || seen.has(key)) continue;
      seen.add(key);
      const entry = lock.packages[key]!;
      visit(key, [...Object.keys(entry.dependencies ?? {}), ...Object.keys(entry.optionalDependencies ?? {}), ...Object.keys(entry.peerDependencies ?? {})]);
    }
  };
  visit('', [...Object.keys(root.dependencies ?? {}), ...Object.keys(root.optionalDependencies ?? {})]);
  return [...seen].sort();
}
