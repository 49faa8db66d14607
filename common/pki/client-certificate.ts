// End-entity certificates for identities and routers: issued with a fresh key, or signed from their own CSR.
import { createPublicKey } from 'node:crypto';
import { systemClock, type Clock } from '../time/clock.ts';
import { chainOf, openIssuer, signWith, type CertificateIssuer, type IssuedCertificate } from './certificate-signer.ts';
import { generateKeyPair, privateKeyToPem } from './key-pair.ts';
import { certificateUsages, leafExtensions, requireIssuerTrustDomain, type CertificateUsage } from './leaf-extensions.ts';
import { requireCommonName, requireDnsName, requireIpAddress, requireValidityDays } from './name-rules.ts';
import { PkiError } from './pki-error.ts';
import { requireSpiffeUri } from './spiffe-id.ts';
import { certificateToPem, x509 } from './x509-runtime.ts';

export type { CertificateIssuer, IssuedCertificate } from './certificate-signer.ts';
export type { CertificateUsage } from './leaf-extensions.ts';

export interface ClientCertificateOptions {
  commonName: string;
  /** A full SPIFFE id (`spiffe://<trustDomain>/...`) in the issuer's trust domain. */
  spiffeId?: string;
  /** Default 365, cut to the issuer's remaining validity. */
  validityDays?: number;
  clock?: Clock;
}

export async function createClientCertificate(issuer: CertificateIssuer, options: ClientCertificateOptions): Promise<IssuedCertificate> {
  const clock = options.clock ?? systemClock;
  const commonName = requireCommonName(options.commonName);
  const spiffeId = checkedSpiffeId(issuer, options.spiffeId);
  const validityDays = requireValidityDays(options.validityDays ?? 365);
  const opened = await openIssuer(issuer, clock.now());
  const keys = await generateKeyPair();
  const certificate = await signWith(opened, {
    commonName,
    publicKey: keys.publicKey,
    extensions: leafExtensions({ usage: 'client', dnsNames: [], ipAddresses: [], spiffeId }),
    validityDays,
    clock,
  });
  const certPem = certificateToPem(certificate);
  return { certPem, keyPem: await privateKeyToPem(keys.privateKey), chainPem: chainOf(certPem, issuer) };
}

export interface SignCertificateRequestOptions {
  /** Defaults to the CSR's common name. */
  commonName?: string;
  usage: CertificateUsage;
  spiffeId?: string;
  dnsNames?: string[];
  ipAddresses?: string[];
  /** Default 365, cut to the issuer's remaining validity. */
  validityDays?: number;
  /** A lifetime in ms (1 minute to 1 day), for short-lived certificates; overrides validityDays. */
  validityMs?: number;
  clock?: Clock;
}

export interface SignedCertificate {
  certPem: string;
  chainPem: string;
}

/**
 * Certifies the key in a PKCS#10 request after checking its self-signature. Only the key and, absent
 * `commonName`, the subject CN come from the request: names and usages are the caller's decision, so
 * extensions the requester asked for are ignored.
 */
export async function signCertificateRequest(
  issuer: CertificateIssuer,
  csrPem: string,
  options: SignCertificateRequestOptions,
): Promise<SignedCertificate> {
  const clock = options.clock ?? systemClock;
  if (!certificateUsages.includes(options.usage)) {
    throw new PkiError('INVALID_ARGUMENT', `invalid usage ${JSON.stringify(options.usage)}: use one of ${certificateUsages.join(', ')}`);
  }
  const dnsNames = [...new Set((options.dnsNames ?? []).map(requireDnsName))];
  const ipAddresses = [...new Set((options.ipAddresses ?? []).map(requireIpAddress))];
  const spiffeId = checkedSpiffeId(issuer, options.spiffeId);
  const validityDays = requireValidityDays(options.validityDays ?? 365);
  const request = await verifiedRequest(csrPem);
  const requestedName = request.subjectName.getField('CN')[0];
  if (options.commonName === undefined && requestedName === undefined) {
    throw new PkiError('INVALID_ARGUMENT', 'the certificate request has no common name and none was given');
  }
  const commonName = requireCommonName(options.commonName ?? requestedName!);
  const opened = await openIssuer(issuer, clock.now());
  const certificate = await signWith(opened, {
    commonName,
    publicKey: request.publicKey,
    extensions: leafExtensions({ usage: options.usage, dnsNames, ipAddresses, spiffeId }),
    validityDays,
    ...(options.validityMs !== undefined ? { validityMs: requireShortValidity(options.validityMs) } : {}),
    clock,
  });
  const certPem = certificateToPem(certificate);
  return { certPem, chainPem: chainOf(certPem, issuer) };
}

async function verifiedRequest(csrPem: string): Promise<x509.Pkcs10CertificateRequest> {
  if (typeof csrPem !== 'string' || !/-----BEGIN (NEW )?CERTIFICATE REQUEST-----/.test(csrPem)) {
    throw new PkiError('INVALID_CSR', 'the certificate request is not PEM text with a "BEGIN CERTIFICATE REQUEST" block');
  }
  let request: x509.Pkcs10CertificateRequest;
  let publicKey: x509.PublicKey;
  try {
    const block = x509.PemConverter.decodeWithHeaders(csrPem).find((pem) => /^(NEW )?CERTIFICATE REQUEST$/.test(pem.type));
    request = new x509.Pkcs10CertificateRequest(block!.rawData);
    publicKey = request.publicKey;
  } catch (cause) {
    throw new PkiError('INVALID_CSR', 'the certificate request could not be parsed as PKCS#10', { cause });
  }
  requireSupportedKey(publicKey);
  let valid: boolean;
  try {
    valid = await request.verify();
  } catch (cause) {
    throw new PkiError('CSR_SIGNATURE_INVALID', 'the certificate request signature could not be checked', { cause });
  }
  if (!valid) throw new PkiError('CSR_SIGNATURE_INVALID', 'the certificate request signature does not match its public key');
  return request;
}

const supportedCurves = new Set(['prime256v1', 'secp384r1', 'secp521r1']);

/** Keys Node's TLS can use and that are strong enough: EC on NIST curves, RSA of 2048 bits or more, Ed25519. */
function requireSupportedKey(publicKey: x509.PublicKey): void {
  let keyObject;
  try {
    keyObject = createPublicKey({ key: Buffer.from(publicKey.rawData), format: 'der', type: 'spki' });
  } catch (cause) {
    throw new PkiError('INVALID_CSR', 'the certificate request holds an unreadable public key', { cause });
  }
  const details = keyObject.asymmetricKeyDetails ?? {};
  const type = keyObject.asymmetricKeyType;
  if (type === 'ec' && supportedCurves.has(details.namedCurve ?? '')) return;
  if (type === 'rsa' && (details.modulusLength ?? 0) >= 2048) return;
  if (type === 'ed25519') return;
  const described = type === 'rsa' ? `RSA ${details.modulusLength} bits` : type === 'ec' ? `EC ${details.namedCurve}` : String(type);
  throw new PkiError('UNSUPPORTED_KEY', `the certificate request key (${described}) is not accepted: use ECDSA P-256/P-384/P-521, RSA 2048+ or Ed25519`);
}

function checkedSpiffeId(issuer: CertificateIssuer, spiffeId: string | undefined): string | undefined {
  if (spiffeId === undefined) return undefined;
  requireIssuerTrustDomain(issuer, requireSpiffeUri(spiffeId).trustDomain);
  return spiffeId;
}

function requireShortValidity(ms: number): number {
  if (!Number.isInteger(ms) || ms < 60_000 || ms > 86_400_000) throw new PkiError('INVALID_ARGUMENT', `invalid validity ${ms} ms: use 1 minute to 1 day`);
  return ms;
}
