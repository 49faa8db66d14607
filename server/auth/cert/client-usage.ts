// Whether a leaf certificate may authenticate a TLS client: an end entity whose extended key usage, if any, allows it.
import type { X509Certificate } from 'node:crypto';
import { claimsCa } from './ca-extensions.ts';

const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const ANY_EXTENDED_KEY_USAGE = '2.5.29.37.0';

/** Why the certificate cannot be a client certificate, or undefined when it can. */
export function clientUsageProblem(leaf: X509Certificate): string | undefined {
  if (claimsCa(leaf)) return 'the certificate is a CA (basicConstraints CA:TRUE), not a client certificate';
  // Node's `keyUsage` is the extended key usage list, undefined when the extension is absent (no restriction).
  const extendedUsages = leaf.keyUsage;
  if (extendedUsages && !extendedUsages.some((oid) => oid === CLIENT_AUTH || oid === ANY_EXTENDED_KEY_USAGE)) {
    return `the extended key usage (${extendedUsages.join(', ')}) does not allow TLS client authentication`;
  }
  return undefined;
}
