// The edge router representation of the Management API: the admin's settings, the enrollment while one is open
// (its token and JWT, as the real controller shows them to admins), and, from the control channels, whether the
// router is online and what it said about itself when it connected.
import type { EdgeRouter } from '../../model/router-entities.ts';
import type { RouterConnection } from '../../edge/router-presence.ts';
import { link } from './links.ts';

/** `SYNC_DONE` while connected (the router has been sent its model), `SYNC_NEW` before enrolling, else `SYNC_DISCONNECTED`. */
export function syncStatusOf(router: EdgeRouter, connection: RouterConnection | undefined): string {
  if (connection) return 'SYNC_DONE';
  return router.isVerified ? 'SYNC_DISCONNECTED' : 'SYNC_NEW';
}

export function edgeRouterView(router: EdgeRouter, connection: RouterConnection | undefined) {
  return {
    id: router.id,
    createdAt: router.createdAt,
    updatedAt: router.updatedAt,
    tags: router.tags,
    _links: {
      self: link(`./edge-routers/${router.id}`),
      're-enroll': link(`./edge-routers/${router.id}/re-enroll`, 'POST'),
    },
    name: router.name,
    roleAttributes: router.roleAttributes,
    isTunnelerEnabled: router.isTunnelerEnabled,
    cost: router.cost,
    noTraversal: router.noTraversal,
    disabled: router.disabled,
    appData: router.appData,
    isVerified: router.isVerified,
    isOnline: connection !== undefined,
    // Left out until the router enrolls, and versionInfo while it is offline, as the real controller leaves them
    // out (neither is nullable in the spec).
    ...(router.fingerprint ? { fingerprint: router.fingerprint } : {}),
    enrollmentToken: router.enrollmentToken,
    enrollmentJwt: router.enrollmentJwt,
    enrollmentCreatedAt: router.enrollmentCreatedAt,
    enrollmentExpiresAt: router.enrollmentExpiresAt,
    ...(connection ? { versionInfo: { version: connection.version, revision: '', buildDate: '', os: '', arch: '' } } : {}),
    syncStatus: syncStatusOf(router, connection),
    hostname: connection?.hostname ?? '',
    supportedProtocols: connection?.supportedProtocols ?? {},
  };
}
