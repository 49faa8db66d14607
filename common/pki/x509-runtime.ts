// Binds @peculiar/x509 to Node's WebCrypto. PKI modules import `x509` from here so the provider is always set first.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { PkiError } from './pki-error.ts';

x509.cryptoProvider.set(webcrypto as Crypto);

export { x509 };

export const ecdsaP256: EcKeyGenParams = { name: 'ECDSA', namedCurve: 'P-256' };
export const ecdsaWithSha256: EcdsaParams = { name: 'ECDSA', hash: 'SHA-256' };

/** Every certificate in a PEM text, in order; throws PkiError('INVALID_CERTIFICATE') if there is none or one is bad. */
export function parseCertificates(pem: string, what = 'certificate'): x509.X509Certificate[] {
  let blocks: x509.PemStruct[];
  try {
    blocks = x509.PemConverter.decodeWithHeaders(pem).filter((block) => block.type === 'CERTIFICATE');
  } catch (cause) {
    throw new PkiError('INVALID_CERTIFICATE', `${what} is not PEM text`, { cause });
  }
  if (blocks.length === 0) throw new PkiError('INVALID_CERTIFICATE', `${what} holds no "BEGIN CERTIFICATE" block`);
  return blocks.map((block) => {
    try {
      return new x509.X509Certificate(block.rawData);
    } catch (cause) {
      throw new PkiError('INVALID_CERTIFICATE', `${what} is not a valid X.509 certificate`, { cause });
    }
  });
}

/** The first certificate of a PEM text (a leaf, when given a chain). */
export function parseCertificate(pem: string, what = 'certificate'): x509.X509Certificate {
  return parseCertificates(pem, what)[0]!;
}

export function certificateToPem(certificate: x509.X509Certificate): string {
  return `${certificate.toString('pem').trim()}\n`;
}
