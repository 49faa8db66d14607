// Which edge routers are connected to the cluster now. The control channels know it (server/routers); the
// management API only asks, through this interface.

/** A router's control channel to one controller, and what the router said about itself when it connected. */
export interface RouterConnection {
  readonly routerId: string;
  /** The controller holding the channel. */
  readonly controllerId: string;
  readonly version: string;
  readonly hostname: string;
  readonly supportedProtocols: Readonly<Record<string, string>>;
  /** RFC 3339. */
  readonly connectedAt: string;
}

export interface RouterPresence {
  /** Every router with a control channel to any controller of the cluster that answered, by router id. */
  connected(): Promise<ReadonlyMap<string, RouterConnection>>;
}

/** For a controller without router channels (and for tests): no router is ever online. */
export const noRouterPresence: RouterPresence = { connected: async () => new Map() };
