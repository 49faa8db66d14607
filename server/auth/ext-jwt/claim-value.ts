// Reads the claim an external signer maps to an identity. A plain name is one top-level claim, taken literally
// (namespaced claims like `https://example.com/email` are common); a leading `/` makes it a JSON pointer into nested
// claims (`/user/email`), with RFC 6901 escapes (`~1` for `/`, `~0` for `~`).

export const defaultClaimsProperty = 'sub';

/** The claim as a string: strings (non-empty) and finite numbers count; objects, arrays and booleans do not. */
export function claimValue(claims: Record<string, unknown>, claimsProperty: string): string | undefined {
  let value: unknown = claims;
  for (const name of claimPath(claimsProperty)) {
    // Own properties only, so `constructor` or `__proto__` never resolve to something inherited.
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, name)) return undefined;
    value = (value as Record<string, unknown>)[name];
  }
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

function claimPath(claimsProperty: string): string[] {
  if (claimsProperty === '') return [defaultClaimsProperty];
  if (!claimsProperty.startsWith('/')) return [claimsProperty];
  return claimsProperty
    .slice(1)
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
}
