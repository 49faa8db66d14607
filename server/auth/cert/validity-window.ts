// Where an instant falls relative to a certificate's notBefore/notAfter (both inclusive, RFC 5280 §4.1.2.5).
import type { X509Certificate } from 'node:crypto';

export type ValidityState = 'valid' | 'expired' | 'not-yet-valid';

export function validityAt(certificate: X509Certificate, now: number): ValidityState {
  if (now < notBeforeOf(certificate)) return 'not-yet-valid';
  if (now > notAfterOf(certificate)) return 'expired';
  return 'valid';
}

export function notBeforeOf(certificate: X509Certificate): number {
  return parseCertificateTime(certificate.validFrom);
}

export function notAfterOf(certificate: X509Certificate): number {
  return parseCertificateTime(certificate.validTo);
}

// Node prints times as OpenSSL does ("Jan  1 00:00:00 2030 GMT"), which Date.parse reads.
function parseCertificateTime(printed: string): number {
  const time = Date.parse(printed);
  if (Number.isNaN(time)) throw new Error(`unreadable certificate time "${printed}"`);
  return time;
}
