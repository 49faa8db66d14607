// The edge listeners' SDK channels, wired to this router: hellos judged by the controller over the control channel
// (`edge.hello`), Connects dialed as circuits by the forwarder.
import type { TLSSocket } from 'node:tls';
import type { Logger } from '../../common/log/logger.ts';
import { currentVersion } from '../../common/version/version-info.ts';
import type { EndStream } from '../circuits/circuit-end.ts';
import type { SdkChannelHandler } from '../circuits/edge-connect-listener.ts';
import type { Forwarder } from '../circuits/forwarder.ts';
import type { ControlChannel } from '../run/control-channel.ts';
import { SdkEdgeChannel, type BindVerdict, type HelloVerdict, type SdkChannelDeps, type TokenUpdateVerdict } from './sdk-edge-channel.ts';
import type { SdkHosts } from './sdk-hosts.ts';

/** The controller's answer to `edge.hello`, checked: anything unexpected is a refusal. */
export function readHelloVerdict(value: unknown): HelloVerdict {
  const answer = value as { identityId?: unknown; identityName?: unknown; apiSessionId?: unknown; refused?: { code?: unknown; message?: unknown } } | null;
  if (answer?.refused) return { refused: { code: String(answer.refused.code), message: String(answer.refused.message) } };
  if (typeof answer?.identityId === 'string' && typeof answer.identityName === 'string') {
    const expiresAtMs = (answer as { expiresAtMs?: unknown }).expiresAtMs;
    return {
      identityId: answer.identityId,
      identityName: answer.identityName,
      apiSessionId: typeof answer.apiSessionId === 'string' ? answer.apiSessionId : '',
      ...(typeof expiresAtMs === 'number' && Number.isFinite(expiresAtMs) ? { expiresAtMs } : {}),
    };
  }
  return { refused: { code: 'CONTROLLER_UNAVAILABLE', message: 'the controller gave no verdict on the hello' } };
}

/** The controller's answer to `edge.updateToken`, checked: anything unexpected is a refusal. */
export function readTokenUpdateVerdict(value: unknown): TokenUpdateVerdict {
  const answer = value as { expiresAtMs?: unknown; refused?: { code?: unknown; message?: unknown } } | null;
  if (answer?.refused) return { refused: { code: String(answer.refused.code), message: String(answer.refused.message) } };
  if (typeof answer?.expiresAtMs === 'number' && Number.isFinite(answer.expiresAtMs)) return { expiresAtMs: answer.expiresAtMs };
  return { refused: { code: 'CONTROLLER_UNAVAILABLE', message: 'the controller gave no verdict on the token' } };
}

/** The controller's answer to `edge.bind`, checked: anything unexpected is a refusal. */
export function readBindVerdict(value: unknown): BindVerdict {
  const answer = value as { terminator?: { id?: unknown }; refused?: { code?: unknown; message?: unknown } } | null;
  if (answer?.refused) return { refused: { code: String(answer.refused.code), message: String(answer.refused.message) } };
  if (typeof answer?.terminator?.id === 'string') return { terminatorId: answer.terminator.id };
  return { refused: { code: 'CONTROLLER_UNAVAILABLE', message: 'the controller gave no verdict on the bind' } };
}

export function sdkChannelHandler(deps: {
  readonly routerId: string;
  readonly channel: Pick<ControlChannel, 'request'>;
  readonly forwarder: Pick<Forwarder, 'dial'>;
  readonly hosts: SdkHosts;
  readonly logger: Logger;
  readonly presence?: SdkChannelDeps['presence'];
}): SdkChannelHandler {
  const info = currentVersion();
  const version = [info.version, info.revision, info.buildDate, process.platform, process.arch === 'x64' ? 'amd64' : process.arch].join('|');
  return (socket: TLSSocket, listener: string, refused: () => void) => {
    const channel = new SdkEdgeChannel(socket, {
      listener,
      onHelloRefused: refused,
      routerId: deps.routerId,
      version,
      verifyHello: async (apiSession, certFingerprint) => readHelloVerdict(await deps.channel.request({ op: 'edge.hello', apiSession, ...(certFingerprint ? { certFingerprint } : {}) })),
      updateToken: async (apiSession, token) => readTokenUpdateVerdict(await deps.channel.request({ op: 'edge.updateToken', apiSession, token })),
      dial: (connection, options) => deps.forwarder.dial('', connection as EndStream, listener, options),
      hosts: deps.hosts,
      bind: async (apiSession, request) => readBindVerdict(await deps.channel.request({ op: 'edge.bind', apiSession, ...request })),
      unbind: (terminatorIds) => {
        deps.channel.request({ op: 'edge.unbind', terminatorIds }).catch((error: Error) => deps.logger.warn('sdk unbind not delivered: the controller forgets the terminators when the router reconnects', { error: error.message }));
      },
      logger: deps.logger,
      ...(deps.presence ? { presence: deps.presence } : {}),
    });
    void channel.start();
  };
}
