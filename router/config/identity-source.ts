// Identity values follow OpenZiti's `<engine>:<value>` convention: no prefix (or `file:`) is a file path, `pem:` is
// inline PEM, and hardware-key engines (`pkcs11:`, `parsec:`) name a key that is not a file. File paths are made
// absolute against the config file's directory; everything else is kept as written.

import { resolve } from 'node:path';

export type IdentitySourceKind = 'file' | 'pem' | 'engine';

const ENGINE = /^(pkcs11|parsec):/;

export function identitySourceKind(value: string): IdentitySourceKind {
  if (value.startsWith('pem:')) return 'pem';
  if (ENGINE.test(value)) return 'engine';
  return 'file';
}

/** The value as the router uses it: a `file:` prefix dropped and the path made absolute; other engines unchanged. */
export function resolveIdentitySource(raw: string, baseDir: string): string {
  const kind = identitySourceKind(raw);
  if (kind !== 'file') return raw;
  return resolve(baseDir, raw.startsWith('file:') ? raw.slice('file:'.length) : raw);
}

/** The file a resolved identity value names, or undefined for inline PEM and hardware engines. */
export function identityFile(value: string): string | undefined {
  return identitySourceKind(value) === 'file' ? value : undefined;
}
