// A controller's certificate: one key for both sides of TLS (it serves clients and dials peer controllers).
import { systemClock, type Clock } from '../time/clock.ts';
import { chainOf, openIssuer, signWith, type CertificateIssuer, type IssuedCertificate } from './certificate-signer.ts';
import { generateKeyPair, privateKeyToPem } from './key-pair.ts';
import { leafExtensions, requireIssuerTrustDomain } from './leaf-extensions.ts';
import { requireDnsName, requireId, requireIpAddress, requireTrustDomain, requireValidityDays } from './name-rules.ts';
import { PkiError } from './pki-error.ts';
import { formatSpiffeId } from './spiffe-id.ts';
import { certificateToPem } from './x509-runtime.ts';

export type { CertificateIssuer, IssuedCertificate } from './certificate-signer.ts';

export interface ControllerCertificateOptions {
  id: string;
  trustDomain: string;
  dnsNames: string[];
  ipAddresses: string[];
  /** Default 365, cut to the issuer's remaining validity. */
  validityDays?: number;
  clock?: Clock;
}

export async function createControllerCertificate(
  issuer: CertificateIssuer,
  options: ControllerCertificateOptions,
): Promise<IssuedCertificate> {
  const clock = options.clock ?? systemClock;
  const id = requireId(options.id, 'controller id');
  const trustDomain = requireTrustDomain(options.trustDomain);
  const dnsNames = unique(options.dnsNames.map(requireDnsName));
  const ipAddresses = unique(options.ipAddresses.map(requireIpAddress));
  // Peers check the host they dialed against DNS/IP SANs only; a certificate without them cannot serve.
  if (dnsNames.length === 0 && ipAddresses.length === 0) {
    throw new PkiError('INVALID_ARGUMENT', 'a controller certificate needs at least one DNS name or IP address');
  }
  const validityDays = requireValidityDays(options.validityDays ?? 365);
  requireIssuerTrustDomain(issuer, trustDomain);
  const opened = await openIssuer(issuer, clock.now());
  const keys = await generateKeyPair();
  const certificate = await signWith(opened, {
    commonName: id,
    publicKey: keys.publicKey,
    extensions: leafExtensions({
      usage: 'both',
      dnsNames,
      ipAddresses,
      spiffeId: formatSpiffeId({ trustDomain, kind: 'controller', id }),
    }),
    validityDays,
    clock,
  });
  const certPem = certificateToPem(certificate);
  return { certPem, keyPem: await privateKeyToPem(keys.privateKey), chainPem: chainOf(certPem, issuer) };
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
