// The enrollment detail representation (management API: admins hand the JWT to the client).
import type { Enrollment, Identity } from '../../model/entities.ts';
import { entityRef, link } from './links.ts';

export function enrollmentView(enrollment: Enrollment, identity: Identity | undefined) {
  return {
    id: enrollment.id,
    createdAt: enrollment.createdAt,
    updatedAt: enrollment.updatedAt,
    tags: enrollment.tags,
    _links: { self: link(`./enrollments/${enrollment.id}`), identity: link(`./identities/${enrollment.identityId}`) },
    method: enrollment.method,
    identityId: enrollment.identityId,
    identity: entityRef('identities', enrollment.identityId, identity?.name ?? ''),
    token: enrollment.token,
    jwt: enrollment.jwt,
    expiresAt: enrollment.expiresAt,
    // Only updb enrollments have one; the spec's type is not nullable, so it is left out otherwise.
    ...(enrollment.username ? { username: enrollment.username } : {}),
  };
}

/** The `enrollment` member of an identity's detail: one entry per outstanding method. */
export function identityEnrollmentsView(enrollments: readonly Enrollment[]) {
  const view: Record<string, unknown> = {};
  for (const enrollment of enrollments) {
    view[enrollment.method] = {
      id: enrollment.id,
      token: enrollment.token,
      jwt: enrollment.jwt,
      expiresAt: enrollment.expiresAt,
      ...(enrollment.username ? { username: enrollment.username } : {}),
    };
  }
  return view;
}
