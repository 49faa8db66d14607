// Which identities hold an SDK edge channel on any router of the cluster now (`hasEdgeRouterConnection`). The
// control channels know it (server/routers/edge-session-index.ts); the APIs only ask, through this interface.

export interface EdgeSessionDirectory {
  /** True while one of the identity's API sessions holds an edge channel on a router (answered from memory). */
  identityConnected(identityId: string): boolean;
}

/** For a controller without router channels (and for tests): no identity is ever connected. */
export const noEdgeSessions: EdgeSessionDirectory = { identityConnected: () => false };
