// A connection the control port accepted, as the channels on it use it: a TLS socket, or one the raft thread
// accepted and relays to the controller's thread (server/raft/worker/proxied-socket.ts).
import type { Duplex } from 'node:stream';

export interface ControlSocket extends Duplex {
  readonly remoteAddress?: string | undefined;
  readonly remotePort?: number | undefined;
  setNoDelay(noDelay?: boolean): this;
  getPeerCertificate(detailed: false): { readonly subject?: { readonly CN?: string | string[] }; readonly raw?: Buffer } | null;
}
