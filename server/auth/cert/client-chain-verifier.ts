// Decides whether the certificates a client presented chain to one of our trust anchors (method=cert login and
// third-party CA auto-enrolment). Pure: the chain, the anchors and the time are all parameters.
import type { X509Certificate } from 'node:crypto';
import { certificateFingerprint } from './certificate-fingerprint.ts';
import { commonNameOf, subjectForLogs } from './certificate-names.ts';
import {
  findTrustedPath,
  MAX_SIGNATURE_CHECKS,
  moreSpecific,
  sameCertificate,
  SignatureBudget,
  type PathResult,
} from './certification-path.ts';
import { clientUsageProblem } from './client-usage.ts';
import { readDerCertificate } from './der-certificate.ts';
import { certificateDers } from './pem-blocks.ts';
import { validityAt } from './validity-window.ts';

/** One or more CA certificates; every certificate in an anchor is trusted. */
export interface TrustAnchor {
  readonly id: string;
  readonly certificatesPem: string;
}

export type ChainFailure =
  | 'no-certificate'
  | 'malformed'
  | 'self-signed'
  | 'unknown-issuer'
  | 'bad-signature'
  | 'not-a-ca'
  | 'expired'
  | 'not-yet-valid'
  | 'not-a-client-certificate';

export type ChainResult =
  | {
      ok: true;
      anchorId: string;
      fingerprint: string;
      leaf: X509Certificate;
      commonName: string;
      /** Some certificate on the accepted path is past its notAfter: only possible with allowExpired. */
      expired: boolean;
    }
  | { ok: false; reason: ChainFailure; detail: string };

type ChainRefusal = Extract<ChainResult, { ok: false }>;

/**
 * chain[0] is the leaf; the intermediates may follow in any order. Anchors are tried in the given order and the
 * first one a valid path reaches wins. An anchor certificate may be an intermediate CA (partial chains are trusted).
 */
export function verifyClientChain(
  chain: readonly Buffer[],
  anchors: readonly TrustAnchor[],
  options: { now: number; allowExpired: boolean },
): ChainResult {
  if (chain.length === 0) return refuse('no-certificate', 'the client presented no certificate');
  const presented: X509Certificate[] = [];
  for (const [index, der] of chain.entries()) {
    const certificate = readDerCertificate(der);
    if (!certificate) return refuse('malformed', `certificate ${index} of the presented chain is not a DER X.509 certificate`);
    presented.push(certificate);
  }
  const [leaf, ...intermediates] = presented as [X509Certificate, ...X509Certificate[]];
  const trustSets = anchors.map((anchor) => ({ id: anchor.id, certificates: anchorCertificates(anchor) }));

  const pinned = trustSets.some((set) => set.certificates.some((certificate) => sameCertificate(certificate, leaf)));
  if (!pinned && isSelfSigned(leaf)) {
    return refuse('self-signed', `"${subjectForLogs(leaf)}" is self-signed and not a trusted certificate`);
  }
  const usageProblem = clientUsageProblem(leaf);
  if (usageProblem) return refuse('not-a-client-certificate', `"${subjectForLogs(leaf)}": ${usageProblem}`);

  const found = firstTrustedPath(leaf, intermediates, trustSets, options);
  if (!found.ok) return found;

  const leafValidity = validityAt(leaf, options.now);
  if (leafValidity === 'not-yet-valid') {
    return refuse('not-yet-valid', `"${subjectForLogs(leaf)}" is not valid until ${leaf.validFrom}`);
  }
  if (leafValidity === 'expired' && !options.allowExpired) {
    return refuse('expired', `"${subjectForLogs(leaf)}" expired ${leaf.validTo}`);
  }
  return {
    ok: true,
    anchorId: found.anchorId,
    fingerprint: certificateFingerprint(leaf.raw),
    leaf,
    commonName: commonNameOf(leaf),
    expired: found.path.some((certificate) => validityAt(certificate, options.now) === 'expired'),
  };
}

function firstTrustedPath(
  leaf: X509Certificate,
  intermediates: readonly X509Certificate[],
  trustSets: readonly { id: string; certificates: X509Certificate[] }[],
  options: { now: number; allowExpired: boolean },
): (Extract<PathResult, { ok: true }> & { anchorId: string }) | ChainRefusal {
  // One budget across all anchors: the number of anchors must not multiply what a client can make us compute.
  const budget = new SignatureBudget(MAX_SIGNATURE_CHECKS);
  let refusal: ChainRefusal | undefined;
  for (const set of trustSets) {
    const result = findTrustedPath(leaf, intermediates, set.certificates, options, budget);
    if (result.ok) return { ...result, anchorId: set.id };
    refusal = moreSpecific<ChainRefusal>(refusal, result);
  }
  return refusal ?? refuse('unknown-issuer', 'no trust anchors are configured');
}

function anchorCertificates(anchor: TrustAnchor): X509Certificate[] {
  // Anchors were validated when stored; one that no longer parses is a broken invariant, so fail loudly.
  const ders = certificateDers(anchor.certificatesPem);
  if (ders.length === 0) throw new Error(`trust anchor ${anchor.id} holds no certificate`);
  return ders.map((der, index) => {
    const certificate = readDerCertificate(der);
    if (!certificate) throw new Error(`certificate ${index} of trust anchor ${anchor.id} does not parse`);
    return certificate;
  });
}

// Issuer equals subject and the certificate's own key verifies it. Not checkIssued: that also demands keyCertSign,
// which a self-signed client certificate (keyUsage digitalSignature) lacks.
function isSelfSigned(certificate: X509Certificate): boolean {
  if (certificate.issuer !== certificate.subject) return false;
  try {
    return certificate.verify(certificate.publicKey);
  } catch {
    return false;
  }
}

function refuse(reason: ChainFailure, detail: string): ChainRefusal {
  return { ok: false, reason, detail };
}
