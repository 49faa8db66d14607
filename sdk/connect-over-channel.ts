// A Connect on a router channel (the fact sheet's §2.4, §3a steps 7-9): a fresh connId whose connection is registered
// before the Connect leaves (the host's stream header can follow StateConnected at once), a key pair when the service
// requires encryption, and the reply read as a connection (StateConnected) or a typed refusal (StateClosed: edge code,
// retry hint and the router's text).
import { newKeyPair } from '../common/edge-protocol/e2e-crypto.ts';
import { edgeContentType } from '../common/edge-protocol/edge-content-types.ts';
import { buildMessage, parseMessage } from '../common/edge-protocol/edge-messages.ts';
import { EdgeConnection } from './edge-connection.ts';
import type { EdgeRouterChannel } from './edge-router-channel.ts';
import { DialRefusedError, EdgeSdkError } from './sdk-errors.ts';

export interface ConnectRequest {
  readonly service: string;
  /** The Dial session's token (the Connect's body). */
  readonly sessionToken: string;
  readonly encryptionRequired: boolean;
  readonly callerId?: string;
  readonly terminatorIdentity?: string;
}

export async function connectOverChannel(channel: EdgeRouterChannel, request: ConnectRequest): Promise<EdgeConnection> {
  const what = `dial of service ${JSON.stringify(request.service)}`;
  const keys = request.encryptionRequired ? newKeyPair() : undefined;
  const connId = channel.newConnId();
  const connection = new EdgeConnection(channel, connId, request.service, keys);
  // Until the caller has it, the dial reports the connection's failure (as its rejection), never an unheard 'error'.
  const heldError = () => undefined;
  connection.on('error', heldError);
  let reply;
  try {
    reply = await channel.request(
      (sequence) =>
        buildMessage.connect({
          sequence,
          connId,
          token: request.sessionToken,
          ...(request.callerId ? { callerId: request.callerId } : {}),
          ...(keys ? { publicKey: keys.publicKey } : {}),
          ...(request.terminatorIdentity ? { terminatorIdentity: request.terminatorIdentity } : {}),
        }),
      what,
    );
  } catch (error) {
    connection.destroy();
    throw error;
  }
  if (reply.contentType === edgeContentType.stateConnected) {
    if (!connection.destroyed) {
      connection.off('error', heldError);
      return connection;
    }
    // The StateConnected itself was unusable (no host key for an encrypted service, say): the connection says why.
    throw new EdgeSdkError('protocol', `${what}: ${connection.errored?.message ?? 'the connection failed as it opened'}`);
  }
  connection.destroy();
  if (reply.contentType !== edgeContentType.stateClosed) throw new EdgeSdkError('protocol', `${what}: the router answered content type ${reply.contentType}`);
  let refusal;
  try {
    refusal = parseMessage.stateClosed(reply);
  } catch (error) {
    throw new EdgeSdkError('protocol', `${what}: ${(error as Error).message}`, { cause: error });
  }
  throw new DialRefusedError(request.service, refusal.error?.code ?? refusal.errorCode ?? 0, refusal.error?.retryHint ?? 0, refusal.reason || refusal.error?.message || '');
}
