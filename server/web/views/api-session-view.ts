// The API session representation returned by authenticate, current-api-session and the management list.
import type { ApiSession, Identity } from '../../model/entities.ts';
import { isoTime } from '../../../common/time/iso-time.ts';
import { entityRef, link } from './links.ts';

export interface SessionTiming {
  readonly lastActivityMs: number;
  readonly expiresAtMs: number;
  readonly now: number;
}

/** `token` is known only to the caller who presented it: the model stores its hash. Elsewhere (the management API's
 * list and detail) it is the empty string, so the property the spec requires is there without the secret. */
export function apiSessionView(session: ApiSession, identity: Identity | undefined, timing: SessionTiming, token?: string) {
  const lastActivityAt = isoTime(timing.lastActivityMs);
  return {
    id: session.id,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
    tags: session.tags,
    _links: { self: link(`./api-sessions/${session.id}`), sessions: link(`./api-sessions/${session.id}/sessions`) },
    token: token ?? '',
    identity: entityRef('identities', session.identityId, identity?.name ?? ''),
    identityId: session.identityId,
    authenticatorId: session.authenticatorId,
    authQueries: session.authQueries,
    isMfaRequired: session.isMfaRequired,
    isMfaComplete: session.isMfaComplete,
    configTypes: session.configTypes,
    ipAddress: session.ipAddress,
    lastActivityAt,
    cachedLastActivityAt: lastActivityAt,
    expiresAt: isoTime(timing.expiresAtMs),
    expirationSeconds: Math.max(0, Math.ceil((timing.expiresAtMs - timing.now) / 1000)),
    isCertExtendable: false,
    isCertExtendRequested: false,
    isCertKeyRollRequested: false,
    improperClientCertChain: false,
  };
}
