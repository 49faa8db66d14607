// Edge routers as the model holds them: what an admin configures, and the router's enrollment. A router is created
// with a one-time enrollment (token and JWT); enrolling stores the SHA-1 fingerprint of the client certificate it
// was issued, the only certificate that may then open a control channel, and of its server certificate with the
// names on it that no other router may hold. Re-enrolling clears the fingerprint and
// starts a new enrollment. Whether a router is online is not model state: the control channels know it. A transit
// router (isTransitRouter) is a row of the same table: it enrolls and connects the same way.
import { EntityTable, type Row } from '../store/entity-table.ts';
import type { BaseEntity } from './base-entity.ts';

export interface EdgeRouter extends BaseEntity {
  readonly name: string;
  readonly roleAttributes: readonly string[];
  readonly isTunnelerEnabled: boolean;
  /** 0..65535: what a path through this router costs. */
  readonly cost: number;
  readonly noTraversal: boolean;
  readonly disabled: boolean;
  readonly appData: Readonly<Record<string, unknown>>;
  /** True once enrolled (and until re-enrolled). */
  readonly isVerified: boolean;
  /** SHA-1 of the enrolled client certificate's DER, lowercase hex; null until enrolled. */
  readonly fingerprint: string | null;
  /** The enrolled client certificate, PEM; null until enrolled. */
  readonly certPem: string | null;
  /** SHA-1 of the enrolled server certificate; null until enrolled (absent on rows enrolled before it was kept). */
  readonly serverFingerprint?: string | null;
  /** The non-loopback names on the enrolled server certificate, `DNS:<name>` / `IP:<address>`: no other router may hold them. */
  readonly serverNames?: readonly string[] | null;
  /** The open enrollment: its single-use token, the JWT carrying it, and when it was made and expires. */
  readonly enrollmentToken: string | null;
  readonly enrollmentJwt: string | null;
  readonly enrollmentCreatedAt: string | null;
  readonly enrollmentExpiresAt: string | null;
  /** Made through `/routers` or `/transit-routers`: a fabric router without the edge. It enrolls, links and carries
   * circuits between routers, but policies never grant it to identities or services (edge-router-access.ts) and
   * `/edge-routers` does not show it. Absent (false) on every edge router. */
  readonly isTransitRouter?: boolean;
}

export const routerTables = {
  edgeRouters: 'edgeRouters',
} as const;

export function createRouterTables(): EntityTable<Row>[] {
  return [
    new EntityTable<EdgeRouter>(routerTables.edgeRouters)
      .uniqueIndex('name', (row) => row.name)
      .uniqueIndex('fingerprint', (row) => row.fingerprint)
      .uniqueIndex('enrollmentToken', (row) => row.enrollmentToken),
  ] as unknown as EntityTable<Row>[];
}
