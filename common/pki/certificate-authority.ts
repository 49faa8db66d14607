// The two CA tiers: a self-signed root that signs only intermediates, and an intermediate that signs leaves.
import { systemClock, type Clock } from '../time/clock.ts';
import { openIssuer, selfSign, signWith, type CertificateIssuer } from './certificate-signer.ts';
import { generateKeyPair, privateKeyToPem } from './key-pair.ts';
import { requireCommonName, requireTrustDomain, requireValidityDays } from './name-rules.ts';
import { PkiError } from './pki-error.ts';
import { trustDomainOf } from './spiffe-id.ts';
import { certificateToPem, x509 } from './x509-runtime.ts';

export type { CertificateIssuer } from './certificate-signer.ts';

export interface RootCaOptions {
  commonName: string;
  trustDomain: string;
  /** Default 3650 (ten years). */
  validityDays?: number;
  clock?: Clock;
}

export interface IntermediateCaOptions {
  commonName: string;
  /** Default 1825 (five years), cut to the root's remaining validity. */
  validityDays?: number;
  clock?: Clock;
}

const caKeyUsage = x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign;

export async function createRootCa(options: RootCaOptions): Promise<CertificateIssuer> {
  const keys = await generateKeyPair();
  const certificate = await selfSign(
    {
      commonName: requireCommonName(options.commonName),
      publicKey: keys.publicKey,
      // pathLen 1: the root signs intermediates, which sign leaves, never further CAs.
      extensions: caExtensions(1, requireTrustDomain(options.trustDomain)),
      validityDays: requireValidityDays(options.validityDays ?? 3650),
      clock: options.clock ?? systemClock,
    },
    keys.privateKey,
  );
  return { certPem: certificateToPem(certificate), keyPem: await privateKeyToPem(keys.privateKey) };
}

/** The intermediate inherits the issuer's trust domain URI SAN, so every CA in a chain names the same domain. */
export async function createIntermediateCa(issuer: CertificateIssuer, options: IntermediateCaOptions): Promise<CertificateIssuer> {
  const clock = options.clock ?? systemClock;
  const commonName = requireCommonName(options.commonName);
  const validityDays = requireValidityDays(options.validityDays ?? 1825);
  const opened = await openIssuer(issuer, clock.now());
  // A CA below a path-length-0 issuer would make every certificate it signs fail validation.
  if (opened.certificate.getExtension(x509.BasicConstraintsExtension)?.pathLength === 0) {
    throw new PkiError('INVALID_ISSUER', `issuer "${opened.certificate.subject}" may only sign end-entity certificates (path length 0)`);
  }
  const keys = await generateKeyPair();
  const certificate = await signWith(opened, {
    commonName,
    publicKey: keys.publicKey,
    extensions: caExtensions(0, trustDomainOf(issuer.certPem)),
    validityDays,
    clock,
  });
  return { certPem: certificateToPem(certificate), keyPem: await privateKeyToPem(keys.privateKey) };
}

function caExtensions(pathLength: number, trustDomain: string | undefined): x509.Extension[] {
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(true, pathLength, true),
    new x509.KeyUsagesExtension(caKeyUsage, true),
  ];
  if (trustDomain) extensions.push(new x509.SubjectAlternativeNameExtension([{ type: 'url', value: `spiffe://${trustDomain}` }]));
  return extensions;
}
