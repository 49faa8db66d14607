// Builds a certification path from a leaf, through untrusted intermediates, to one trusted certificate.
// Pure: the time comes from the caller, nothing is read from disk or the system trust store.
import type { X509Certificate } from 'node:crypto';
import { subjectForLogs as describe } from './certificate-names.ts';
import { validityAt } from './validity-window.ts';

export type PathFailureReason = 'unknown-issuer' | 'bad-signature' | 'not-a-ca' | 'expired' | 'not-yet-valid';

export interface PathOptions {
  readonly now: number;
  /** Tolerate expired issuers (never not-yet-valid ones). */
  readonly allowExpired: boolean;
}

export type PathResult =
  | { ok: true; path: X509Certificate[] /* leaf first, trusted certificate last */ }
  | { ok: false; reason: PathFailureReason; detail: string };

type PathFailure = Extract<PathResult, { ok: false }>;

/** Certificates in a path, leaf included; stops loops and absurdly deep chains. */
export const MAX_PATH_LENGTH = 8;
/**
 * Signature checks one search may spend. A client chooses its intermediates, and many certificates with linking
 * names would otherwise make the search explode; honest chains need one check per link.
 */
export const MAX_SIGNATURE_CHECKS = 64;

/** Searches for a path; the budget is shared so that a caller trying several trust sets stays bounded too. */
export function findTrustedPath(
  leaf: X509Certificate,
  intermediates: readonly X509Certificate[],
  trusted: readonly X509Certificate[],
  options: PathOptions,
  budget: SignatureBudget = new SignatureBudget(MAX_SIGNATURE_CHECKS),
): PathResult {
  // A certificate that is itself trusted needs no issuer (a pinned leaf, or a partial chain's end).
  if (trusted.some((anchor) => sameCertificate(anchor, leaf))) return { ok: true, path: [leaf] };
  return extend([leaf], intermediates, trusted, options, budget);
}

export class SignatureBudget {
  constructor(private remaining: number) {}

  spend(): boolean {
    if (this.remaining <= 0) return false;
    this.remaining -= 1;
    return true;
  }
}

function extend(
  path: X509Certificate[],
  intermediates: readonly X509Certificate[],
  trusted: readonly X509Certificate[],
  options: PathOptions,
  budget: SignatureBudget,
): PathResult {
  const current = path.at(-1)!;
  const candidates = [
    ...trusted.map((certificate) => ({ certificate, isTrusted: true })),
    ...intermediates.filter((certificate) => !path.includes(certificate)).map((certificate) => ({ certificate, isTrusted: false })),
  ];
  let failure: PathFailure | undefined;
  for (const { certificate: issuer, isTrusted } of candidates) {
    if (!current.checkIssued(issuer)) continue;
    if (!budget.spend()) return fail('unknown-issuer', `gave up after ${MAX_SIGNATURE_CHECKS} signature checks`);
    const problem = linkProblem(current, issuer, options);
    if (problem) {
      failure = moreSpecific(failure, problem);
      continue;
    }
    if (isTrusted) return { ok: true, path: [...path, issuer] };
    if (path.length + 1 >= MAX_PATH_LENGTH) {
      failure = moreSpecific(failure, fail('unknown-issuer', `no trusted issuer within ${MAX_PATH_LENGTH} certificates`));
      continue;
    }
    const deeper = extend([...path, issuer], intermediates, trusted, options, budget);
    if (deeper.ok) return deeper;
    failure = moreSpecific(failure, deeper);
  }
  return failure ?? fail('unknown-issuer', `no trusted issuer found for "${describe(current)}"`);
}

/** Why `issuer` cannot vouch for `subject`, or undefined when the link holds. */
function linkProblem(subject: X509Certificate, issuer: X509Certificate, options: PathOptions): PathFailure | undefined {
  if (!signatureVerifies(subject, issuer)) {
    return fail('bad-signature', `"${describe(subject)}" is not signed by the key of "${describe(issuer)}"`);
  }
  if (!issuer.ca) return fail('not-a-ca', `"${describe(issuer)}" signed "${describe(subject)}" but is not a CA`);
  const validity = validityAt(issuer, options.now);
  if (validity === 'not-yet-valid') return fail('not-yet-valid', `issuer "${describe(issuer)}" is not valid until ${issuer.validFrom}`);
  if (validity === 'expired' && !options.allowExpired) {
    return fail('expired', `issuer "${describe(issuer)}" expired ${issuer.validTo}`);
  }
  return undefined;
}

function signatureVerifies(subject: X509Certificate, issuer: X509Certificate): boolean {
  try {
    return subject.verify(issuer.publicKey);
  } catch {
    // An unusable key or signature encoding is a bad signature, not a crash.
    return false;
  }
}

/** Of two failures, the one to report: a concrete problem on a link explains more than "no issuer". */
export function moreSpecific<F extends { reason: string }>(current: F | undefined, next: F): F {
  if (!current) return next;
  return current.reason === 'unknown-issuer' && next.reason !== 'unknown-issuer' ? next : current;
}

export function sameCertificate(a: X509Certificate, b: X509Certificate): boolean {
  return a.raw.equals(b.raw);
}

function fail(reason: PathFailureReason, detail: string): PathFailure {
  return { ok: false, reason, detail };
}
