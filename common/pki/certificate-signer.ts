// Signs one certificate: random positive serial, validity window with clock-skew allowance kept inside the issuer's,
// subject/authority key identifiers. Callers choose the subject, key and usage extensions.
import { webcrypto } from 'node:crypto';
import type { Clock } from '../time/clock.ts';
import { loadSigningKey } from './key-pair.ts';
import { PemMemo } from './pem-memo.ts';
import { PkiError } from './pki-error.ts';
import { certificateToPem, ecdsaWithSha256, parseCertificate, x509 } from './x509-runtime.ts';

/** A CA that can sign: its certificate (first PEM block) and its PKCS#8 private key. */
export interface CertificateIssuer {
  certPem: string;
  keyPem: string;
}

/** An end-entity certificate with its new key. */
export interface IssuedCertificate {
  certPem: string;
  keyPem: string;
  /** The leaf followed by its issuer: what a TLS endpoint presents. */
  chainPem: string;
}

/** Leaf plus the issuing CA only; the root stays out, as peers must already trust it. */
export function chainOf(certPem: string, issuer: CertificateIssuer): string {
  return certPem + issuerPems.get(issuer.certPem, (pem) => certificateToPem(parseCertificate(pem, 'issuer certificate')));
}

/** The issuer's certificate alone, re-encoded (its first PEM block), by the issuer's PEM text. */
const issuerPems = new PemMemo<string>(16);

/** Clocks on peers may run behind ours; starting validity an hour early keeps fresh certificates usable there. */
export const clockSkewAllowanceMs = 60 * 60 * 1000;
const dayMs = 24 * 60 * 60 * 1000;

/** An issuer whose key is imported and checked against its certificate. */
export interface OpenedIssuer {
  certificate: x509.X509Certificate;
  privateKey: CryptoKey;
  keyId: string;
}

export async function openIssuer(issuer: CertificateIssuer, now: number): Promise<OpenedIssuer> {
  const { certificate, keyId } = await issuerCertificates.getAsync(issuer.certPem, checkedIssuerCertificate);
  if (certificate.notAfter.getTime() <= now) {
    throw new PkiError('ISSUER_EXPIRED', `issuer "${certificate.subject}" expired at ${certificate.notAfter.toISOString()}`);
  }
  // Keyed by both texts: the same key is judged against each certificate it is paired with.
  const privateKey = await issuerKeys.getAsync(`${issuer.certPem}\n${issuer.keyPem}`, () => matchingIssuerKey(issuer.keyPem, certificate));
  return { certificate, privateKey, keyId };
}

/** Parsed and checked once per PEM (pem-memo.ts); the expiry is checked on every use, against that moment. */
const issuerCertificates = new PemMemo<{ certificate: x509.X509Certificate; keyId: string }>(16);
const issuerKeys = new PemMemo<CryptoKey>(16);

async function checkedIssuerCertificate(certPem: string): Promise<{ certificate: x509.X509Certificate; keyId: string }> {
  const certificate = parseCertificate(certPem, 'issuer certificate');
  const constraints = certificate.getExtension(x509.BasicConstraintsExtension);
  if (!constraints?.ca) throw new PkiError('INVALID_ISSUER', `issuer "${certificate.subject}" is not a CA (no CA:TRUE basic constraint)`);
  const keyUsage = certificate.getExtension(x509.KeyUsagesExtension);
  if (keyUsage && (keyUsage.usages & x509.KeyUsageFlags.keyCertSign) === 0) {
    throw new PkiError('INVALID_ISSUER', `issuer "${certificate.subject}" may not sign certificates (no keyCertSign usage)`);
  }
  const subjectKeyId = certificate.getExtension(x509.SubjectKeyIdentifierExtension);
  return { certificate, keyId: subjectKeyId?.keyId ?? (await keyIdOf(certificate.publicKey)) };
}

async function matchingIssuerKey(keyPem: string, certificate: x509.X509Certificate): Promise<CryptoKey> {
  const key = await loadSigningKey(keyPem, 'issuer private key');
  if (!sameBytes(key.publicKeyDer, new Uint8Array(certificate.publicKey.rawData))) {
    throw new PkiError('INVALID_ISSUER', `issuer private key does not belong to certificate "${certificate.subject}"`);
  }
  return key.privateKey;
}

export interface CertificateContent {
  commonName: string;
  publicKey: CryptoKey | x509.PublicKey;
  /** Usage and name extensions; key identifiers are added here. */
  extensions: x509.Extension[];
  validityDays: number;
  /** A lifetime shorter than a day (an API session's certificate), in ms; overrides validityDays when set. */
  validityMs?: number;
  clock: Clock;
}

export async function selfSign(content: CertificateContent, privateKey: CryptoKey): Promise<x509.X509Certificate> {
  const keyId = await keyIdOf(await x509.PublicKey.create(content.publicKey));
  return sign(content, { name: nameOf(content.commonName), privateKey, keyId, window: undefined });
}

export async function signWith(issuer: OpenedIssuer, content: CertificateContent): Promise<x509.X509Certificate> {
  return sign(content, {
    name: issuer.certificate.subjectName,
    privateKey: issuer.privateKey,
    keyId: issuer.keyId,
    window: { notBefore: issuer.certificate.notBefore, notAfter: issuer.certificate.notAfter },
  });
}

interface Signer {
  name: x509.Name;
  privateKey: CryptoKey;
  keyId: string;
  window: { notBefore: Date; notAfter: Date } | undefined;
}

async function sign(content: CertificateContent, signer: Signer): Promise<x509.X509Certificate> {
  const now = content.clock.now();
  let notBefore = now - clockSkewAllowanceMs;
  let notAfter = now + (content.validityMs ?? content.validityDays * dayMs);
  // A certificate outliving its issuer would fail validation early anyway; say so in the certificate itself.
  if (signer.window) {
    notBefore = Math.max(notBefore, signer.window.notBefore.getTime());
    notAfter = Math.min(notAfter, signer.window.notAfter.getTime());
  }
  const publicKey = await x509.PublicKey.create(content.publicKey);
  return x509.X509CertificateGenerator.create({
    serialNumber: randomSerialNumber(),
    subject: nameOf(content.commonName),
    issuer: signer.name,
    notBefore: new Date(notBefore),
    notAfter: new Date(notAfter),
    publicKey,
    signingKey: signer.privateKey,
    signingAlgorithm: ecdsaWithSha256,
    extensions: [
      ...content.extensions,
      new x509.SubjectKeyIdentifierExtension(await keyIdOf(publicKey)),
      new x509.AuthorityKeyIdentifierExtension(signer.keyId),
    ],
  });
}

/** 20 octets (the RFC 5280 maximum), first one 0x01-0x7f: positive, fixed length, 159 random bits. */
export function randomSerialNumber(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(20));
  bytes[0] = bytes[0]! & 0x7f || 0x01;
  return Buffer.from(bytes).toString('hex');
}

// An explicit UTF8String: the library parses DN strings and plain values for escapes and quotes,
// which would let "," or '"' in a common name inject attributes or be mangled.
function nameOf(commonName: string): x509.Name {
  return new x509.Name([{ CN: [{ utf8String: commonName }] }]);
}

async function keyIdOf(publicKey: x509.PublicKey): Promise<string> {
  return Buffer.from(await publicKey.getKeyIdentifier()).toString('hex');
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}
