// Resets a connection (RST, not FIN) so that its client cannot take a cut-off stream for a whole one. A TLS
// connection (an edge listener's CONNECT client) has no TCP handle of its own: Node's resetAndDestroy throws on it
// (ERR_INVALID_HANDLE_TYPE), and resetting the TCP socket under a live TLS socket crashes the process, so a TLS
// connection is destroyed without its close_notify: its client sees the stream cut short, not a clean end.
import type { Duplex } from 'node:stream';

export function resetSocket(socket: Duplex & { encrypted?: boolean; resetAndDestroy?: () => unknown; readyState?: string }): void {
  const tls = socket.encrypted === true;
  if (!tls && typeof socket.resetAndDestroy === 'function' && !socket.destroyed && socket.readyState !== 'opening') {
    try {
      socket.resetAndDestroy();
      return;
    } catch {
      // Not a TCP handle after all: destroyed below.
    }
  }
  socket.destroy();
}
