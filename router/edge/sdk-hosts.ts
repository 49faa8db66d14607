// The SDK-hosted terminators of this router: each Bind an SDK made on one of its edge channels, by terminator id (the
// controller's, whose address is `sdk:<id>`). A circuit whose route ends at one of them is dialed by sending the
// hosting SDK a Dial over its channel (sdk-edge-channel.ts); after a new control channel is welcomed every Bind is
// registered again under the same id, as the controller forgets what an earlier channel registered.
import type { CircuitRoute } from '../../common/circuits/circuit-route.ts';
import type { EndStream } from '../circuits/circuit-end.ts';

export { sdkBinding } from '../../common/circuits/terminator-address.ts';

/** The prefix of an SDK-hosted terminator's address (`sdk:<terminator id>`). */
export const sdkAddressPrefix = 'sdk:';

/** One channel's side of its Binds, as the registry drives it. */
export interface BindHost {
  /** Sends the hosting SDK a Dial for this circuit; the connection it accepted, and its end-to-end key if any. */
  dialHost(listenerConnId: number, route: CircuitRoute): Promise<{ readonly stream: EndStream; readonly hostKey?: string }>;
  /** Registers this channel's Binds with the controller again (after a welcome). */
  rebind(): void;
  /** The controller removed this terminator (its identity may no longer Bind): close the SDK's listener. */
  bindRevoked(listenerConnId: number, reason: string): void;
}

export class SdkHosts {
  private readonly hosts = new Map<string, { readonly host: BindHost; readonly listenerConnId: number }>();
  private readonly channels = new Set<BindHost>();

  add(terminatorId: string, host: BindHost, listenerConnId: number): void {
    this.hosts.set(terminatorId, { host, listenerConnId });
    this.channels.add(host);
  }

  remove(terminatorId: string): void {
    this.hosts.delete(terminatorId);
  }

  /** A channel closed: it hosts nothing more. */
  channelClosed(host: BindHost): void {
    this.channels.delete(host);
    for (const [id, entry] of this.hosts) if (entry.host === host) this.hosts.delete(id);
  }

  has(terminatorId: string): boolean {
    return this.hosts.has(terminatorId);
  }

  get size(): number {
    return this.hosts.size;
  }

  /** Why this router cannot dial the route's SDK-hosted terminator, or undefined when it can. */
  problem(route: CircuitRoute): string | undefined {
    const id = route.terminator.address.startsWith(sdkAddressPrefix) ? route.terminator.address.slice(sdkAddressPrefix.length) : '';
    return id === route.terminator.id && this.hosts.has(id) ? undefined : `no SDK hosts terminator ${route.terminator.id} on this router (it unbound or left)`;
  }

  dial(route: CircuitRoute): Promise<{ readonly stream: EndStream; readonly hostKey?: string }> {
    const entry = this.hosts.get(route.terminator.id);
    if (!entry) return Promise.reject(new Error(`no SDK hosts terminator ${route.terminator.id} on this router`));
    return entry.host.dialHost(entry.listenerConnId, route);
  }

  /** After a welcome: every channel registers its Binds again. */
  rebindAll(): void {
    for (const host of this.channels) host.rebind();
  }

  /** `ctrl.sdkTerminatorsRemoved`: the SDKs' listeners for these terminators are closed. */
  revoked(terminatorIds: readonly string[], reason: string): void {
    for (const id of terminatorIds) {
      const entry = this.hosts.get(id);
      if (!entry) continue;
      this.hosts.delete(id);
      entry.host.bindRevoked(entry.listenerConnId, reason);
    }
  }
}
