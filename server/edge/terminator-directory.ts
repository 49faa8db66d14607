// Terminators: where the overlay delivers a service's circuits. A router whose tunnel listener hosts services
// registers one per service its identity may Bind (binding `tunnel`, the host.v1 address). They are presence, not
// model state: the controller holding the router's control channel keeps them (server/routers/terminator-registry.ts),
// the others ask it; the management API only reads them, through this interface.

export interface TerminatorRecord {
  /** Stable for a router and a service, whichever controller the router is connected to. */
  readonly id: string;
  readonly serviceId: string;
  readonly routerId: string;
  readonly binding: string;
  readonly address: string;
  /** The hosting identity: for a router-hosted terminator, the router's own identity (its id). */
  readonly identity: string;
  readonly cost: number;
  readonly precedence: 'default' | 'required' | 'failed';
  /** RFC 3339: when the router registered it (on its current channel). */
  readonly createdAt: string;
  readonly updatedAt: string;
  /** The controller holding the router's channel ('' for one an admin made: model state, on no channel). */
  readonly controllerId: string;
  readonly tags?: Readonly<Record<string, unknown>>;
  /** Who made it: a router from its Bind policy (the default), an admin through the API (model-terminators.ts), or
   * an SDK's Bind on a router's edge listener (edge-bind-check.ts). */
  readonly origin?: 'router' | 'admin' | 'sdk';
  /** An SDK-hosted terminator: the identity that bound it, and its API session. */
  readonly hostIdentityId?: string;
  readonly apiSessionId?: string;
}

export interface TerminatorDirectory {
  /** Every terminator of the cluster that the controllers asked answered with, in id order. */
  list(): Promise<TerminatorRecord[]>;
}

/** For a controller without router channels (and for tests): no terminators. */
export const noTerminators: TerminatorDirectory = { list: async () => [] };
