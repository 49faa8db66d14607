// The connections of one link once its handshake is done: one `single` connection, or the `payload` and `ack`
// halves of a split link. Dialer, listener and link channel pass links around in this shape.

import type { FramedSocket } from './framed-socket.ts';
import type { LinkConnType } from './link-hello.ts';

export type LinkSockets =
  | { readonly shape: 'single'; readonly single: FramedSocket }
  | { readonly shape: 'split'; readonly payload: FramedSocket; readonly ack: FramedSocket };

export interface LinkConnection {
  readonly connType: LinkConnType;
  readonly framed: FramedSocket;
}

/** The link's connections, the one that carries payloads (and reports latency) first. */
export function connectionsOf(sockets: LinkSockets): readonly LinkConnection[] {
  return sockets.shape === 'single'
    ? [{ connType: 'single', framed: sockets.single }]
    : [
        { connType: 'payload', framed: sockets.payload },
        { connType: 'ack', framed: sockets.ack },
      ];
}

/** Puts the connections of one link, keyed by connType, in shape; undefined unless they make exactly one link. */
export function linkSocketsOf(connections: ReadonlyMap<LinkConnType, FramedSocket>): LinkSockets | undefined {
  const single = connections.get('single');
  const payload = connections.get('payload');
  const ack = connections.get('ack');
  if (single !== undefined && connections.size === 1) return { shape: 'single', single };
  if (payload !== undefined && ack !== undefined && connections.size === 2) return { shape: 'split', payload, ack };
  return undefined;
}

export function closeLinkSockets(sockets: LinkSockets, reason: string): void {
  for (const { framed } of connectionsOf(sockets)) framed.close(reason);
}
