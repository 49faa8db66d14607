// Who signed something outside TLS (a controller's route, an egress router's `c.ready`): the signer presents its
// certificate chain (the leaf, then any intermediates, as PEM) next to the signature, and the chain must lead to an
// anchor of the CA bundle with every certificate valid now. Chains already checked are remembered (a few dozen: one
// per controller or router the process hears from), so a busy path does not re-verify them per circuit. Pure but for
// that cache; the time is a parameter.
import type { KeyObject, X509Certificate } from 'node:crypto';
import { certificatesOfPem } from './presented-certificate.ts';

export type SignerVerdict = { readonly ok: true; readonly certificate: X509Certificate; readonly key: KeyObject } | { readonly ok: false; readonly reason: string };

const maxChainLength = 5;
const maxRemembered = 64;

export class SignerChains {
  private readonly trusted: readonly X509Certificate[];
  private readonly chains = new Map<string, { certificate: X509Certificate; key: KeyObject }>();

  /** `signerName` starts the reasons (`the route signer`, `the ready signer`). */
  constructor(
    caPem: string,
    private readonly signerName: string,
  ) {
    this.trusted = certificatesOfPem(caPem);
  }

  signerOf(chainPem: string, nowMs: number): SignerVerdict {
    const known = this.chains.get(chainPem);
    if (known && validAt(known.certificate, nowMs)) return { ok: true, ...known };
    let chain: X509Certificate[];
    try {
      chain = certificatesOfPem(chainPem);
    } catch {
      return { ok: false, reason: `${this.signerName} is not a PEM certificate` };
    }
    const [leaf, ...intermediates] = chain;
    if (!leaf || chain.length > maxChainLength) return { ok: false, reason: `${this.signerName} is not a certificate chain` };
    if (!this.chainsToTrust(leaf, intermediates, nowMs)) return { ok: false, reason: `${this.signerName} does not chain to this router's CA` };
    const entry = { certificate: leaf, key: leaf.publicKey };
    if (this.chains.size >= maxRemembered) this.chains.clear();
    this.chains.set(chainPem, entry);
    return { ok: true, ...entry };
  }

  private chainsToTrust(leaf: X509Certificate, intermediates: readonly X509Certificate[], nowMs: number): boolean {
    let current = leaf;
    for (let depth = 0; depth <= maxChainLength; depth++) {
      if (!validAt(current, nowMs)) return false;
      if (this.trusted.some((anchor) => issuedBy(current, anchor))) return true;
      const next = intermediates.find((candidate) => candidate.ca && issuedBy(current, candidate));
      if (!next) return false;
      current = next;
    }
    return false;
  }
}

/** RSA and EC keys sign a SHA-256 digest; Ed25519 signs the message itself. */
export function signatureDigestFor(key: KeyObject): string | null {
  return key.asymmetricKeyType === 'ed25519' || key.asymmetricKeyType === 'ed448' ? null : 'sha256';
}

function issuedBy(certificate: X509Certificate, issuer: X509Certificate): boolean {
  try {
    return certificate.checkIssued(issuer) && certificate.verify(issuer.publicKey);
  } catch {
    return false;
  }
}

function validAt(certificate: X509Certificate, nowMs: number): boolean {
  return Date.parse(certificate.validFrom) <= nowMs && nowMs <= Date.parse(certificate.validTo);
}
