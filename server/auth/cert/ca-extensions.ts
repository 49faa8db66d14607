// What a certificate's extensions say about acting as a CA, read separately because Node's `ca` merges them:
// it is true only for basicConstraints CA:TRUE *and* a key usage (if any) that includes keyCertSign.
import type { X509Certificate } from 'node:crypto';
import { x509 } from '../../../common/pki/x509-runtime.ts';

/** basicConstraints says CA:TRUE, whatever the key usage. */
export function claimsCa(certificate: X509Certificate): boolean {
  return new x509.X509Certificate(certificate.raw).getExtension(x509.BasicConstraintsExtension)?.ca === true;
}

/** The key usage extension is absent or includes keyCertSign. */
export function mayUseKeyForCertificateSigning(certificate: X509Certificate): boolean {
  const keyUsage = new x509.X509Certificate(certificate.raw).getExtension(x509.KeyUsagesExtension);
  return !keyUsage || (keyUsage.usages & x509.KeyUsageFlags.keyCertSign) !== 0;
}
