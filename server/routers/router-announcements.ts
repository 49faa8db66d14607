// Routers' arrivals and departures gathered for one `ctrl.routersChanged` per interval, to the routers that said
// `routersChanged` in their hello. One message per router per arrival made 5,000 routers arriving cost 25 million
// frames; a batch names each router once, in its latest state, and each receiver hears only of the routers it may
// link with (link-reach.ts). Pure: the hub keeps the timer.
import type { CtrlRoutersChanged, RouterInfo } from '../../common/control-channel/control-messages.ts';
import { linkReachKey, mayLink, type LinkReach } from './link-reach.ts';

/** One router's latest change: connected (with what is told of it) or gone; `reach` undefined when unknown. */
interface Change {
  readonly routerId: string;
  readonly info: RouterInfo | undefined;
  readonly reach: LinkReach | undefined;
}

export class RouterAnnouncements {
  private pending = new Map<string, Change>();

  // Deleted first so that the batch keeps the order of each router's latest change.
  connected(info: RouterInfo, reach: LinkReach): void {
    this.pending.delete(info.id);
    this.pending.set(info.id, { routerId: info.id, info, reach });
  }

  /** `reach`: the router's, when known (a router nobody knew the reach of is told to every receiver). */
  disconnected(routerId: string, reach: LinkReach | undefined): void {
    this.pending.delete(routerId);
    this.pending.set(routerId, { routerId, info: undefined, reach });
  }

  get size(): number {
    return this.pending.size;
  }

  /**
   * The batch so far, emptied: `messageFor(reach)` gives the message for a receiver of that reach (undefined when it
   * names nobody), one object for every receiver of the same reach.
   */
  take(): (receiver: LinkReach) => CtrlRoutersChanged | undefined {
    const changes = [...this.pending.values()];
    this.pending = new Map();
    const byKey = new Map<string, CtrlRoutersChanged | undefined>();
    return (receiver) => {
      const key = linkReachKey(receiver);
      if (byKey.has(key)) return byKey.get(key);
      const connected: RouterInfo[] = [];
      const disconnected: string[] = [];
      for (const change of changes) {
        if (change.reach !== undefined && !mayLink(receiver, change.reach)) continue;
        if (change.info) connected.push(change.info);
        else disconnected.push(change.routerId);
      }
      const message: CtrlRoutersChanged | undefined = connected.length + disconnected.length === 0 ? undefined : { type: 'ctrl.routersChanged', connected, disconnected };
      byKey.set(key, message);
      return message;
    };
  }
}
