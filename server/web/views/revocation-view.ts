// The revocation detail representation.
import type { Revocation } from '../../model/revocation-entities.ts';
import { link } from './links.ts';

export function revocationView(revocation: Revocation) {
  return {
    id: revocation.id,
    createdAt: revocation.createdAt,
    updatedAt: revocation.updatedAt,
    tags: revocation.tags,
    _links: { self: link(`./revocations/${encodeURIComponent(revocation.id)}`) },
    type: revocation.type,
    expiresAt: revocation.expiresAt,
  };
}
