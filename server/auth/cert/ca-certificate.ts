// Third-party CA certificates: accepting one for registration, and checking the proof that its owner holds
// the CA's private key (OpenZiti's POST /cas/{id}/verify).
import type { X509Certificate } from 'node:crypto';
import { claimsCa, mayUseKeyForCertificateSigning } from './ca-extensions.ts';
import { certificateFingerprint } from './certificate-fingerprint.ts';
import { commonNameOf, subjectForLogs, subjectLine } from './certificate-names.ts';
import { findTrustedPath } from './certification-path.ts';
import { readDerCertificate } from './der-certificate.ts';
import { certificateDers, encodePem, pemBlocks, PemSyntaxError, type PemBlock } from './pem-blocks.ts';
import { notAfterOf, notBeforeOf, validityAt } from './validity-window.ts';

export interface CaCertificateInfo {
  fingerprint: string;
  commonName: string;
  subject: string;
  /** ISO 8601 */
  notBefore: string;
  /** ISO 8601 */
  notAfter: string;
  /** Normalised PEM of the certificate alone. */
  certPem: string;
}

export type CaCertificateErrorCode = 'EXPECTED_PEM_CERTIFICATE' | 'COULD_NOT_PARSE_DER_BLOCK' | 'INVALID_CA';

export class CaCertificateError extends Error {
  override readonly name = 'CaCertificateError';

  constructor(
    readonly code: CaCertificateErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Exactly one PEM CERTIFICATE block holding a CA certificate; anything else throws CaCertificateError. */
export function parseCaCertificate(pem: string): CaCertificateInfo {
  const blocks = readPem(pem);
  if (blocks.length > 1) {
    const types = blocks.map((block) => block.type).join(', ');
    throw new CaCertificateError('EXPECTED_PEM_CERTIFICATE', `expected exactly one PEM block, found ${blocks.length} (${types})`);
  }
  const certificate = certificateOf(blocks[0]);
  const problem = caProblem(certificate);
  if (problem) throw new CaCertificateError('INVALID_CA', `"${subjectForLogs(certificate)}" ${problem}`);
  return {
    fingerprint: certificateFingerprint(certificate.raw),
    commonName: commonNameOf(certificate),
    subject: subjectLine(certificate),
    notBefore: new Date(notBeforeOf(certificate)).toISOString(),
    notAfter: new Date(notAfterOf(certificate)).toISOString(),
    certPem: encodePem('CERTIFICATE', certificate.raw),
  };
}

export type PossessionResult =
  | { ok: true }
  | {
      ok: false;
      code: 'EXPECTED_PEM_CERTIFICATE' | 'COULD_NOT_PARSE_DER_BLOCK' | 'INVALID_COMMON_NAME' | 'CERTIFICATE_FAILED_VALIDATION';
      reason: string;
    };

/**
 * The proof is a certificate whose subject CN is the CA's verification token, signed by the CA: only the holder
 * of the CA key can make one. As in OpenZiti, only the first PEM block counts and the check runs at `now`.
 */
export function verifyCaPossession(caPem: string, proofPem: string, verificationToken: string, now: number): PossessionResult {
  const ca = storedCaCertificate(caPem);
  let proof: X509Certificate;
  try {
    proof = certificateOf(readPem(proofPem)[0]);
  } catch (error) {
    if (!(error instanceof CaCertificateError) || error.code === 'INVALID_CA') throw error;
    return { ok: false, code: error.code, reason: error.message };
  }
  // An empty token would match any certificate without a CN.
  if (verificationToken === '' || commonNameOf(proof) !== verificationToken) {
    return { ok: false, code: 'INVALID_COMMON_NAME', reason: "the certificate's common name is not the CA's verification token" };
  }
  // The CA certificate itself is public, so presenting it proves nothing.
  if (proof.raw.equals(ca.raw)) {
    return { ok: false, code: 'CERTIFICATE_FAILED_VALIDATION', reason: 'the proof must be a new certificate signed by the CA, not the CA itself' };
  }
  const validity = validityAt(proof, now);
  if (validity !== 'valid') {
    return { ok: false, code: 'CERTIFICATE_FAILED_VALIDATION', reason: `the certificate is ${validity} (valid ${proof.validFrom} to ${proof.validTo})` };
  }
  const path = findTrustedPath(proof, [], [ca], { now, allowExpired: false });
  if (!path.ok) return { ok: false, code: 'CERTIFICATE_FAILED_VALIDATION', reason: `the certificate does not verify against the CA: ${path.detail}` };
  return { ok: true };
}

function readPem(pem: string): PemBlock[] {
  let blocks: PemBlock[];
  try {
    blocks = pemBlocks(pem);
  } catch (error) {
    if (!(error instanceof PemSyntaxError)) throw error;
    throw new CaCertificateError('EXPECTED_PEM_CERTIFICATE', `the PEM text is malformed: ${error.message}`);
  }
  if (blocks.length === 0) throw new CaCertificateError('EXPECTED_PEM_CERTIFICATE', 'expected a PEM "BEGIN CERTIFICATE" block, found no PEM text');
  return blocks;
}

function certificateOf(block: PemBlock | undefined): X509Certificate {
  if (!block) throw new CaCertificateError('EXPECTED_PEM_CERTIFICATE', 'expected a PEM "BEGIN CERTIFICATE" block, found none');
  // Name the block type only: the content may be a private key pasted by mistake.
  if (block.type !== 'CERTIFICATE') {
    throw new CaCertificateError('EXPECTED_PEM_CERTIFICATE', `expected a CERTIFICATE PEM block, found a ${block.type} block`);
  }
  const certificate = readDerCertificate(block.der);
  if (!certificate) throw new CaCertificateError('COULD_NOT_PARSE_DER_BLOCK', 'the CERTIFICATE block does not hold a valid X.509 certificate');
  return certificate;
}

/** Why the certificate cannot act as a CA, or undefined when it can. */
function caProblem(certificate: X509Certificate): string | undefined {
  if (!claimsCa(certificate)) return 'is not a CA certificate (basicConstraints CA:TRUE is missing)';
  // Without keyCertSign a CA cannot sign the client certificates we would be asked to trust.
  if (!mayUseKeyForCertificateSigning(certificate)) return 'has a key usage without keyCertSign';
  return undefined;
}

function storedCaCertificate(caPem: string): X509Certificate {
  // The CA was accepted by parseCaCertificate when stored; if it no longer parses, that is a broken invariant.
  const der = certificateDers(caPem)[0];
  const certificate = der && readDerCertificate(der);
  if (!certificate) throw new Error('the stored CA certificate does not parse');
  return certificate;
}
