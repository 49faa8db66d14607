// The fingerprint OpenZiti stores on a cert authenticator: SHA-1 over the DER, lowercase hex, no separators.
// SHA-1 here is an identifier, not a security boundary: the chain is verified before a fingerprint is looked up.
import { createHash } from 'node:crypto';
import { certificateDers } from './pem-blocks.ts';

export function certificateFingerprint(der: Buffer): string {
  return createHash('sha1').update(der).digest('hex');
}

/** Fingerprint of the first CERTIFICATE block of a PEM text. */
export function fingerprintOfPem(pem: string): string {
  const first = certificateDers(pem)[0];
  if (!first) throw new Error('no "BEGIN CERTIFICATE" block found in the PEM text');
  return certificateFingerprint(first);
}
