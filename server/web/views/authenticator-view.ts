// The authenticator detail representation: never the password hash.
import type { Authenticator, Identity } from '../../model/entities.ts';
import { entityRef, link } from './links.ts';

export function authenticatorView(authenticator: Authenticator, identity: Identity | undefined) {
  return {
    id: authenticator.id,
    createdAt: authenticator.createdAt,
    updatedAt: authenticator.updatedAt,
    tags: authenticator.tags,
    _links: { self: link(`./authenticators/${authenticator.id}`), identity: link(`./identities/${authenticator.identityId}`) },
    method: authenticator.method,
    identityId: authenticator.identityId,
    identity: entityRef('identities', authenticator.identityId, identity?.name ?? ''),
    username: authenticator.method === 'updb' ? authenticator.username : '',
    certPem: authenticator.method === 'cert' ? authenticator.certPem : '',
    fingerprint: authenticator.method === 'cert' ? authenticator.fingerprint : '',
    isIssuedByNetwork: authenticator.method === 'cert' ? authenticator.isIssuedByNetwork : false,
    isExtendRequested: false,
    isKeyRollRequested: false,
    extendRequestedAt: null,
  };
}
