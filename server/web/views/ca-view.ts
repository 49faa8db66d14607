// The third-party CA detail representation. `externalIdClaim` is left out when none is set, as the real controller
// leaves it out (the spec's type is not nullable).
import type { Ca } from '../../model/entities.ts';
import { link } from './links.ts';

export function caView(ca: Ca) {
  return {
    id: ca.id,
    createdAt: ca.createdAt,
    updatedAt: ca.updatedAt,
    tags: ca.tags,
    _links: { self: link(`./cas/${ca.id}`), ...(ca.isVerified ? {} : { verify: link(`./cas/${ca.id}/verify`, 'POST') }) },
    name: ca.name,
    certPem: ca.certPem,
    fingerprint: ca.fingerprint,
    isVerified: ca.isVerified,
    verificationToken: ca.verificationToken,
    isAutoCaEnrollmentEnabled: ca.isAutoCaEnrollmentEnabled,
    isOttCaEnrollmentEnabled: ca.isOttCaEnrollmentEnabled,
    isAuthEnabled: ca.isAuthEnabled,
    identityRoles: ca.identityRoles,
    identityNameFormat: ca.identityNameFormat,
    ...(ca.externalIdClaim ? { externalIdClaim: ca.externalIdClaim } : {}),
  };
}
