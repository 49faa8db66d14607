// The current identity's MFA record: the secrets only while enrollment is outstanding.
import type { MfaDetail } from '../../edge/mfa-service.ts';
import { link } from './links.ts';

export function mfaView(detail: MfaDetail) {
  const { mfa } = detail;
  const links = mfa.isVerified
    ? { 'recovery-codes': link('./current-identity/mfa/recovery-codes') }
    : { verify: link('./current-identity/mfa/verify', 'POST'), qr: link('./current-identity/mfa/qr-code') };
  return {
    id: mfa.id,
    createdAt: mfa.createdAt,
    updatedAt: mfa.updatedAt,
    tags: mfa.tags,
    _links: { self: link('./current-identity/mfa'), 'current-identity': link('./current-identity'), ...links },
    isVerified: mfa.isVerified,
    ...(mfa.isVerified ? {} : { provisioningUrl: detail.provisioningUrl, recoveryCodes: detail.recoveryCodes }),
  };
}
