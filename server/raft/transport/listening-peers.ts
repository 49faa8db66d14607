// A peer network with the control port that brings it the channels peers open: what a controller's raft runtime
// starts (on its own thread or the controller's). The port hands controllers to the network and, when `onRouter`
// is given, routers to the router hub; shutting down ends the channels first, then the port.
import type { TLSSocket } from 'node:tls';
import { ControlPort } from '../../control-port/control-port.ts';
import type { ControlPortLimits } from '../../control-port/control-port-limits.ts';
import { PeerNetwork, type PeerNetworkOptions } from './peer-network.ts';

export interface ListeningPeersOptions extends PeerNetworkOptions {
  readonly listen: { readonly host: string; readonly port: number };
  /** Limits before a connection is known (defaults: defaultControlPortLimits). */
  readonly controlPort?: Partial<ControlPortLimits>;
  /** A router's control connection (a verified certificate naming no controller). Unset: refused. */
  readonly onRouter?: (socket: TLSSocket) => void;
}

export interface ListeningPeers {
  readonly peers: PeerNetwork;
  shutdown(): Promise<void>;
}

/**
 * Makes the network, lets `attach` wire it (before any peer can connect), then listens on the control port; rejects,
 * with nothing left open, when the port cannot listen.
 */
export async function listenForPeers(options: ListeningPeersOptions, attach?: (peers: PeerNetwork) => void): Promise<ListeningPeers> {
  const { listen, controlPort, onRouter, ...networkOptions } = options;
  const peers = new PeerNetwork(networkOptions);
  attach?.(peers);
  const port = new ControlPort({
    listen,
    tls: options.tls,
    trustDomain: options.trustDomain,
    ...(controlPort ? { limits: controlPort } : {}),
    logger: options.logger,
    onController: (socket) => peers.accept(socket),
    ...(onRouter ? { onRouter } : {}),
  });
  try {
    await port.start();
  } catch (error) {
    await peers.shutdown();
    throw error;
  }
  return {
    peers,
    async shutdown() {
      await peers.shutdown();
      await port.close();
    },
  };
}
