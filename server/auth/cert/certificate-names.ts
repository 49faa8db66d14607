// Names inside a certificate, read with @peculiar/x509 because Node's `subject` string escapes and reorders values.
import type { X509Certificate } from 'node:crypto';
import { x509 } from '../../../common/pki/x509-runtime.ts';

/**
 * The subject common name, or '' when there is none. With several CNs the last wins, as in Go's
 * pkix.Name.CommonName, so OpenZiti and this controller agree on which name a certificate carries.
 */
export function commonNameOf(certificate: X509Certificate): string {
  const names = new x509.X509Certificate(certificate.raw).subjectName.getField('CN');
  return names.at(-1) ?? '';
}

/** The subject on one line (RFC 4514 escaping), for logs and API views. */
export function subjectLine(certificate: X509Certificate): string {
  return new x509.X509Certificate(certificate.raw).subject;
}

/** Node's subject on one line: cheap, and good enough to name a certificate in a log line. */
export function subjectForLogs(certificate: X509Certificate): string {
  return certificate.subject.split('\n').join(', ');
}
