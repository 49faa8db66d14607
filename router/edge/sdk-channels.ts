// The edge listeners' SDK channels, wired to this router: hellos judged by the controller over the control channel
// (`edge.hello`), Connects dialed as circuits by the forwarder.
import type { TLSSocket } from 'node:tls';
import type { Logger } from '../../common/log/logger.ts';
import { currentVersion } from '../../common/version/version-info.ts';
import type { EndStream } from '../circuits/circuit-end.ts';
import type { SdkChannelHandler } from '../circuits/edge-connect-listener.ts';
import type { Forwarder } from '../circuits/forwarder.ts';
import type { ControlChannel } from '../run/control-channel.ts';
import { SdkEdgeChannel, type HelloVerdict, type SdkChannelDeps } from './sdk-edge-channel.ts';

/** The controller's answer to `edge.hello`, checked: anything unexpected is a refusal. */
export function readHelloVerdict(value: unknown): HelloVerdict {
  const answer = value as { identityId?: unknown; identityName?: unknown; apiSessionId?: unknown; refused?: { code?: unknown; message?: unknown } } | null;
  if (answer?.refused) return { refused: { code: String(answer.refused.code), message: String(answer.refused.message) } };
  if (typeof answer?.identityId === 'string' && typeof answer.identityName === 'string') {
    return { identityId: answer.identityId, identityName: answer.identityName, apiSessionId: typeof answer.apiSessionId === 'string' ? answer.apiSessionId : '' };
  }
  return { refused: { code: 'CONTROLLER_UNAVAILABLE', message: 'the controller gave no verdict on the hello' } };
}

export function sdkChannelHandler(deps: { readonly routerId: string; readonly channel: Pick<ControlChannel, 'request'>; readonly forwarder: Pick<Forwarder, 'dial'>; readonly logger: Logger; readonly presence?: SdkChannelDeps['presence'] }): SdkChannelHandler {
  const info = currentVersion();
  const version = [info.version, info.revision, info.buildDate, process.platform, process.arch === 'x64' ? 'amd64' : process.arch].join('|');
  return (socket: TLSSocket, listener: string) => {
    const channel = new SdkEdgeChannel(socket, {
      listener,
      routerId: deps.routerId,
      version,
      verifyHello: async (apiSession, certFingerprint) => readHelloVerdict(await deps.channel.request({ op: 'edge.hello', apiSession, ...(certFingerprint ? { certFingerprint } : {}) })),
      dial: (connection, options) => deps.forwarder.dial('', connection as EndStream, listener, options),
      logger: deps.logger,
      ...(deps.presence ? { presence: deps.presence } : {}),
    });
    void channel.start();
  };
}
