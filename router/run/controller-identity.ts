// Whether the server a router dialled is a controller, not merely something holding a certificate of the same CA
// (another router's server certificate chains to it too). A controller certificate carries the SPIFFE id
// `spiffe://<trustDomain>/controller/<id>`, and its trust domain must be one the router's CA bundle (`identity.ca`,
// saved at enrollment) declares. Where the router is set up with pinned fingerprints (`ctrl.controllerFingerprints`),
// the certificate must instead be one of those. Used for the control channel and at enrollment. Pure.
import type { X509Certificate } from 'node:crypto';
import { commonNameOf, fingerprintOf, spiffeClaimOf, trustDomainsOfBundle } from '../../common/certificates/presented-certificate.ts';

export interface ControllerTrust {
  /** The trust domains of the router's CA bundle; empty when it declares none (then any trust domain is taken). */
  readonly trustDomains: readonly string[];
  /** Lowercase SHA-1 hex; when any is set, only these certificates are controllers. */
  readonly pinnedFingerprints: readonly string[];
}

export type ControllerVerdict =
  /** `controllerId`: the id in the certificate's SPIFFE id (undefined for a pinned certificate without one). */
  | { readonly ok: true; readonly controllerId: string | undefined }
  | { readonly ok: false; readonly reason: string };

export function controllerTrustOf(caPem: string, pinnedFingerprints: readonly string[] = []): ControllerTrust {
  return { trustDomains: trustDomainsOfBundle(caPem), pinnedFingerprints };
}

/** The rule in force, for the start log. */
export function describeControllerTrust(trust: ControllerTrust): Record<string, unknown> {
  if (trust.pinnedFingerprints.length > 0) return { rule: 'pinned fingerprint', fingerprints: trust.pinnedFingerprints };
  return { rule: 'controller SPIFFE id', trustDomains: trust.trustDomains.length > 0 ? trust.trustDomains : 'any (the CA bundle declares none)' };
}

export function verifyControllerCertificate(certificate: X509Certificate | undefined, trust: ControllerTrust): ControllerVerdict {
  if (certificate === undefined) return refuse('it presented no certificate');
  const claim = spiffeClaimOf(certificate);
  const spiffeController = claim.kind === 'one' && claim.id.kind === 'controller' ? claim.id.id : undefined;
  const fingerprint = fingerprintOf(certificate);
  if (trust.pinnedFingerprints.length > 0) {
    if (trust.pinnedFingerprints.includes(fingerprint)) return { ok: true, controllerId: spiffeController };
    return refuse(`its certificate (fingerprint ${fingerprint}, common name ${commonNameOf(certificate) ?? 'none'}) is not one of ctrl.controllerFingerprints`);
  }
  if (claim.kind === 'none') return refuse(`its certificate (common name ${commonNameOf(certificate) ?? 'none'}) carries no SPIFFE id, so it is not a controller's`);
  if (claim.kind === 'unreadable') return refuse(`its certificate carries SPIFFE ids that name no controller: ${claim.uris.join(', ')}`);
  const { id } = claim;
  if (id.kind !== 'controller') return refuse(`its certificate is a ${id.kind}'s (spiffe://${id.trustDomain}/${id.kind}/${id.id}), not a controller's`);
  if (trust.trustDomains.length > 0 && !trust.trustDomains.includes(id.trustDomain)) {
    return refuse(`its controller certificate is of trust domain "${id.trustDomain}", not this router's (${trust.trustDomains.join(', ')})`);
  }
  return { ok: true, controllerId: id.id };
}

function refuse(reason: string): ControllerVerdict {
  return { ok: false, reason };
}
