// External JWT signer representations: the management detail, and the public client list (no key material).
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

export function externalJwtSignerView(signer: ExternalJwtSigner) {
  return {
    ...baseFields(signer),
    issuer: signer.issuer,
    audience: signer.audience,
    enabled: signer.enabled,
    certPem: signer.certPem,
    jwksEndpoint: signer.jwksEndpoint,
    kid: signer.kid,
    claimsProperty: signer.claimsProperty,
    useExternalId: signer.useExternalId,
    externalAuthUrl: signer.externalAuthUrl,
    clientId: signer.clientId,
    scopes: signer.scopes,
    targetToken: signer.targetToken,
    commonName: signer.commonName,
    fingerprint: signer.fingerprint,
    notBefore: signer.notBefore,
    notAfter: signer.notAfter,
  };
}

/** What any client may read before it logs in: enough to find the signer's login page. */
export function clientExternalJwtSignerView(signer: ExternalJwtSigner) {
  return {
    ...baseFields(signer),
    externalAuthUrl: signer.externalAuthUrl,
    openIdConfigurationUrl: null,
    clientId: signer.clientId,
    audience: signer.audience,
    scopes: signer.scopes,
    targetToken: signer.targetToken ?? 'ACCESS',
    enrollToCertEnabled: false,
    enrollToTokenEnabled: false,
  };
}
