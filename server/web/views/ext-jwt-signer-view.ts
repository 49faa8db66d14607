// External JWT signer representations: the management detail, and the public client list (no key material). The
// spec requires every detail property as a non-null value: a signer without a certificate shows an empty common
// name and fingerprint and the zero time for its validity, as the real controller's zero values read.
import type { ExternalJwtSigner } from '../../model/entities.ts';
import { link } from './links.ts';

const baseFields = (signer: ExternalJwtSigner) => ({
  id: signer.id,
  createdAt: signer.createdAt,
  updatedAt: signer.updatedAt,
  tags: signer.tags,
  _links: { self: link(`./external-jwt-signers/${signer.id}`) },
  name: signer.name,
});

/** Go's zero time.Time, as strfmt writes it: what the real controller shows for a signer with no certificate. */
const zeroTime = '0001-01-01T00:00:00.000Z';

export function externalJwtSignerView(signer: ExternalJwtSigner) {
  return {
    ...baseFields(signer),
    issuer: signer.issuer,
    audience: signer.audience ?? '',
    enabled: signer.enabled,
    certPem: signer.certPem,
    jwksEndpoint: signer.jwksEndpoint,
    kid: signer.kid ?? '',
    claimsProperty: signer.claimsProperty,
    useExternalId: signer.useExternalId,
    externalAuthUrl: signer.externalAuthUrl ?? '',
    clientId: signer.clientId ?? '',
    scopes: signer.scopes,
    targetToken: signer.targetToken ?? 'ACCESS',
    commonName: signer.commonName ?? '',
    fingerprint: signer.fingerprint ?? '',
    notBefore: signer.notBefore ?? zeroTime,
    notAfter: signer.notAfter ?? zeroTime,
  };
}

/** What any client may read before it logs in: enough to find the signer's login page. */
export function clientExternalJwtSignerView(signer: ExternalJwtSigner) {
  return {
    ...baseFields(signer),
    externalAuthUrl: signer.externalAuthUrl ?? '',
    clientId: signer.clientId,
    audience: signer.audience,
    scopes: signer.scopes,
    targetToken: signer.targetToken ?? 'ACCESS',
    enrollToCertEnabled: false,
    enrollToTokenEnabled: false,
  };
}
