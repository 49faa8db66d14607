// edgeward's own SDK: an enrolled identity logs in to the Edge Client API by certificate, learns its services, and
// dials them through the edge routers its Dial sessions list, over the SDK edge protocol (the fact sheet's §3a).
//
//   const sdk = EdgeSdk.fromIdentityFile('id.json');
//   const socket = await sdk.dial('echo');     // a Duplex; end() half-closes
//   ...
//   const listener = await sdk.bind('svc', (socket) => socket.pipe(socket));   // hosts it: each dial a Duplex
//   sdk.close();
//
// One channel per router, reused by every dial through it and opened again when lost. A Dial session is kept per
// service and asked again once when a router answers "invalid session"; the API session is logged in again once when
// the controller or a router no longer knows it. Every wait is bounded; every failure is an EdgeSdkError.
import { edgeErrorCode } from '../common/edge-protocol/edge-headers.ts';
import { connectOverChannel } from './connect-over-channel.ts';
import { ControllerClient, type ApiSession, type CurrentIdentity, type EdgeService, type ServiceSession } from './controller-client.ts';
import type { EdgeConnection } from './edge-connection.ts';
import { EdgeListener } from './edge-listener.ts';
import { EdgeRouterChannel } from './edge-router-channel.ts';
import { readIdentityFile, type EdgeIdentity } from './identity-file.ts';
import { ControllerApiError, DialRefusedError, EdgeSdkError } from './sdk-errors.ts';

export interface EdgeSdkOptions {
  /** Bound on every controller request and every router answer (ms). */
  readonly timeoutMs?: number;
}

export interface DialOptions {
  /** A terminator of the service by its identity (header 1006), when the service has several. */
  readonly terminatorIdentity?: string;
}

/** Handles each connection a bound service receives (see `bind`). */
export type BindHandler = (connection: EdgeConnection) => void;

const sessionCodes = new Set<number>([edgeErrorCode.invalidSession, edgeErrorCode.wrongSessionType]);

export class EdgeSdk {
  private readonly controller: ControllerClient;
  private apiSession: ApiSession | undefined;
  private loggingIn: Promise<ApiSession> | undefined;
  private identityInfo: CurrentIdentity | undefined;
  private serviceList: EdgeService[] | undefined;
  private lastChangeAt: string | undefined;
  private readonly dialSessions = new Map<string, ServiceSession>();
  private readonly channels = new Map<string, Promise<EdgeRouterChannel>>();
  private closed = false;

  private constructor(
    readonly identity: EdgeIdentity,
    private readonly options: EdgeSdkOptions = {},
  ) {
    this.controller = new ControllerClient(identity.controllerUrls[0]!, identity, options.timeoutMs ?? 10_000);
  }

  /** An SDK for the identity file at `path` (OpenZiti's format: ztAPI, id.cert / id.key / id.ca). */
  static fromIdentityFile(path: string, options?: EdgeSdkOptions): EdgeSdk {
    return new EdgeSdk(readIdentityFile(path), options);
  }

  /** An SDK for credentials in hand: the client API URL (root or `/edge/client/v1`) and PEM texts. */
  static fromCredentials(credentials: { controllerUrl: string; cert: string; key: string; ca: string }, options?: EdgeSdkOptions): EdgeSdk {
    const { controllerUrl, cert, key, ca } = credentials;
    const base = controllerUrl.replace(/\/+$/, '');
    return new EdgeSdk({ controllerUrls: [base.endsWith('/edge/client/v1') ? base : `${base}/edge/client/v1`], cert, key, ca }, options);
  }

  /** Logs in by certificate (once; again when the session is gone) and reads the identity. */
  async login(): Promise<CurrentIdentity> {
    await this.session();
    return this.identityInfo!;
  }

  /** The API session token (logging in first when there is none). */
  async apiSessionToken(): Promise<string> {
    return (await this.session()).token;
  }

  /** The identity's services (read once, then again when service updates say they moved). */
  async services(): Promise<readonly EdgeService[]> {
    if (!this.serviceList) this.serviceList = await this.authorized((token) => this.controller.services(token));
    return this.serviceList;
  }

  /**
   * Polls `GET /current-api-session/service-updates`; when the marker moved since the last call, reads the services
   * again. True when they were read again (the first call always reads them).
   */
  async refreshServices(): Promise<boolean> {
    const marker = await this.authorized((token) => this.controller.serviceUpdates(token));
    if (this.serviceList && marker === this.lastChangeAt) return false;
    this.lastChangeAt = marker;
    this.serviceList = await this.authorized((token) => this.controller.services(token));
    for (const name of this.dialSessions.keys()) if (!this.serviceList.some((service) => service.name === name)) this.dialSessions.delete(name);
    return true;
  }

  /** A connection to `serviceName` through one of its session's edge routers; a refusal is a DialRefusedError. */
  async dial(serviceName: string, options: DialOptions = {}): Promise<EdgeConnection> {
    if (this.closed) throw new EdgeSdkError('closed', 'the SDK is closed');
    const service = await this.dialableService(serviceName);
    let sessionRetried = false;
    let loginRetried = false;
    for (;;) {
      const session = await this.dialSession(service);
      try {
        return await this.connectThroughRouters(service, session, options);
      } catch (error) {
        if (error instanceof DialRefusedError && !sessionRetried && (sessionCodes.has(error.edgeCode) || /^invalid session/i.test(error.reason))) {
          // As SDKs do: the session may be gone (deleted, expired, policy changed): ask for a new one, once.
          sessionRetried = true;
          this.dialSessions.delete(service.name);
          continue;
        }
        if (error instanceof DialRefusedError && !loginRetried && error.edgeCode === edgeErrorCode.invalidApiSession) {
          loginRetried = true;
          await this.relogin();
          continue;
        }
        throw error;
      }
    }
  }

  /**
   * Hosts `serviceName` from this SDK: a Bind session, then Bind on the first of its edge routers that takes it (with
   * this side's key when the service requires encryption). Resolves once the router confirms the terminator
   * (BindSuccess); `handler` receives each connection a dialer opens, as an EdgeConnection. A refusal is a
   * DialRefusedError with `operation` 'bind'.
   */
  async bind(serviceName: string, handler: BindHandler, options: { cost?: number } = {}): Promise<EdgeListener> {
    if (this.closed) throw new EdgeSdkError('closed', 'the SDK is closed');
    const find = (list: readonly EdgeService[]) => list.find((service) => service.name === serviceName && service.permissions.includes('Bind'));
    let service = find(await this.services());
    if (!service) {
      this.serviceList = undefined;
      service = find(await this.services());
    }
    if (!service) throw new EdgeSdkError('no-such-service', `no service ${JSON.stringify(serviceName)} this identity may bind`);
    const bound = service;
    const session = await this.authorized((token) => this.controller.createSession(token, bound.id, 'Bind'));
    if (session.edgeRouters.length === 0) throw new EdgeSdkError('router-unreachable', `service ${JSON.stringify(serviceName)}: the session lists no edge router this identity may use`);
    const failures: string[] = [];
    for (const router of session.edgeRouters) {
      try {
        const channel = await this.channel(router.tlsUrl);
        return await EdgeListener.open(channel, { service: bound.name, sessionToken: session.token, encryptionRequired: bound.encryptionRequired, ...(options.cost ? { cost: options.cost } : {}) }, handler, this.options.timeoutMs);
      } catch (error) {
        if (error instanceof DialRefusedError) throw error;
        failures.push(`${router.name}: ${(error as Error).message}`);
      }
    }
    throw new EdgeSdkError('router-unreachable', `service ${JSON.stringify(serviceName)}: no edge router took the bind (${failures.join('; ')})`);
  }

  /** Closes every router channel (and so every connection); the SDK cannot be used after. */
  close(): void {
    this.closed = true;
    for (const channel of this.channels.values()) channel.then((open) => open.close('sdk closed'), () => undefined);
    this.channels.clear();
  }

  private async dialableService(name: string): Promise<EdgeService> {
    const find = (list: readonly EdgeService[]) => list.find((service) => service.name === name);
    let service = find(await this.services());
    if (!service) {
      // It may be new: read the list again once.
      this.serviceList = undefined;
      service = find(await this.services());
    }
    if (!service || !service.permissions.includes('Dial')) throw new EdgeSdkError('no-such-service', `no service ${JSON.stringify(name)} this identity may dial`);
    return service;
  }

  private async dialSession(service: EdgeService): Promise<ServiceSession> {
    const cached = this.dialSessions.get(service.name);
    if (cached) return cached;
    const session = await this.authorized((token) => this.controller.createSession(token, service.id, 'Dial'));
    this.dialSessions.set(service.name, session);
    return session;
  }

  private async connectThroughRouters(service: EdgeService, session: ServiceSession, options: DialOptions): Promise<EdgeConnection> {
    if (session.edgeRouters.length === 0) throw new EdgeSdkError('router-unreachable', `service ${JSON.stringify(service.name)}: the session lists no edge router this identity may use`);
    const failures: string[] = [];
    for (const router of session.edgeRouters) {
      let channel: EdgeRouterChannel;
      try {
        channel = await this.channel(router.tlsUrl);
      } catch (error) {
        failures.push(`${router.name}: ${(error as Error).message}`);
        continue;
      }
      try {
        return await this.connect(channel, service, session, options);
      } catch (error) {
        // A channel that closed under the Connect (the router dropped it): the next router, or the caller's retry.
        if (error instanceof EdgeSdkError && error.kind === 'closed') {
          failures.push(`${router.name}: ${error.message}`);
          continue;
        }
        throw error;
      }
    }
    throw new EdgeSdkError('router-unreachable', `service ${JSON.stringify(service.name)}: no edge router took the dial (${failures.join('; ')})`);
  }

  private connect(channel: EdgeRouterChannel, service: EdgeService, session: ServiceSession, options: DialOptions): Promise<EdgeConnection> {
    return connectOverChannel(channel, {
      service: service.name,
      sessionToken: session.token,
      encryptionRequired: service.encryptionRequired,
      ...(this.identityInfo?.name ? { callerId: this.identityInfo.name } : {}),
      ...(options.terminatorIdentity ? { terminatorIdentity: options.terminatorIdentity } : {}),
    });
  }

  /** The channel to a router, opened (with the hello) when there is none or it was lost. */
  private channel(url: string): Promise<EdgeRouterChannel> {
    const existing = this.channels.get(url);
    if (existing) return existing;
    const opening = this.session().then((session) =>
      EdgeRouterChannel.open({ url, tls: this.identity, apiSessionToken: session.token, helloBody: this.identityInfo?.name, timeoutMs: this.options.timeoutMs }),
    );
    this.channels.set(url, opening);
    opening.then(
      (channel) => channel.onClose(() => this.channels.get(url) === opening && this.channels.delete(url)),
      () => this.channels.get(url) === opening && this.channels.delete(url),
    );
    return opening;
  }

  private session(): Promise<ApiSession> {
    if (this.apiSession) return Promise.resolve(this.apiSession);
    if (!this.loggingIn) {
      this.loggingIn = (async () => {
        const session = await this.controller.authenticateWithCertificate();
        this.identityInfo = await this.controller.currentIdentity(session.token);
        this.apiSession = session;
        return session;
      })().finally(() => {
        this.loggingIn = undefined;
      });
    }
    return this.loggingIn;
  }

  /** Logs in again: the API session expired or was removed. Channels said hello with the old one: they close. */
  private async relogin(): Promise<void> {
    this.apiSession = undefined;
    this.dialSessions.clear();
    for (const channel of this.channels.values()) channel.then((open) => open.close('api session renewed'), () => undefined);
    this.channels.clear();
    await this.session();
  }

  /** A controller call with the API session; a 401 (session expired or removed) logs in again and tries once more. */
  private async authorized<T>(call: (token: string) => Promise<T>): Promise<T> {
    const session = await this.session();
    try {
      return await call(session.token);
    } catch (error) {
      if (!(error instanceof ControllerApiError) || error.status !== 401) throw error;
      if (this.apiSession?.token === session.token) await this.relogin();
      return call((await this.session()).token);
    }
  }
}
