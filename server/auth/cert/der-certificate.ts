// Turns DER bytes into Node's X509Certificate, refusing anything that is not DER.
import { X509Certificate } from 'node:crypto';

const ASN1_SEQUENCE = 0x30;

/** The parsed certificate, or undefined when the bytes are not a DER X.509 certificate. */
export function readDerCertificate(der: Buffer): X509Certificate | undefined {
  // X509Certificate also accepts PEM; insisting on a DER SEQUENCE keeps fingerprints (taken over these bytes) honest.
  if (der.length === 0 || der[0] !== ASN1_SEQUENCE) return undefined;
  try {
    return new X509Certificate(der);
  } catch {
    return undefined;
  }
}
