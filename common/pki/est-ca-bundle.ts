// The EST (RFC 7030) `cacerts` body as OpenZiti serves and reads it: a certs-only PKCS#7, base64 in 64-character
// lines as `openssl base64` writes them. The line breaks matter: OpenSSL's base64 reader (used by the C SDK through
// tlsuv) returns nothing for one unbroken line, and the SDK crashes on that.
import { PkiError } from './pki-error.ts';
import { certificateToPem, parseCertificates, x509 } from './x509-runtime.ts';

const lineLength = 64;

/** The `cacerts` body for a PEM bundle: base64 PKCS#7 in lines of 64 characters, each ending in a newline. */
export function encodeEstCaBundle(bundlePem: string): string {
  const base64 = new x509.X509Certificates(parseCertificates(bundlePem, 'CA bundle')).export('base64');
  const lines: string[] = [];
  for (let at = 0; at < base64.length; at += lineLength) lines.push(base64.slice(at, at + lineLength));
  return `${lines.join('\n')}\n`;
}

/** The PEM bundle in a `cacerts` body (base64 PKCS#7, wrapped or not); throws PkiError on anything else. */
export function decodeEstCaBundle(body: string): string {
  const compact = body.replace(/\s+/g, '');
  if (compact === '' || !/^[A-Za-z0-9+/]+={0,2}$/.test(compact)) throw new PkiError('INVALID_CERTIFICATE', 'the CA bundle is not base64 text');
  let certificates: x509.X509Certificates;
  try {
    certificates = new x509.X509Certificates(Buffer.from(compact, 'base64'));
  } catch (cause) {
    throw new PkiError('INVALID_CERTIFICATE', 'the CA bundle is not a PKCS#7 of certificates', { cause });
  }
  if (certificates.length === 0) throw new PkiError('INVALID_CERTIFICATE', 'the CA bundle holds no certificate');
  return certificates.map((certificate) => certificateToPem(certificate)).join('');
}
