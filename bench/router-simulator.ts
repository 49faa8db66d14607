// Thousands of edge routers from one process, for the controller's scale benchmarks (bench/router-sim-bench.ts, and
// the 10x-Large model of bench/scale-*.ts). Each simulated router is made and enrolled as an operator and
// `./edgeward router enroll` would do it: `POST /edge-routers` (tunneler-enabled when it hosts services), its
// enrollment JWT's claims read and its signature checked against the controller's certificate, a P-256 key of its
// own, two CSRs (client and server certificate) redeemed at `/enroll/erott` (router/enroll/*). It then holds one
// mutual-TLS control channel (common/control-channel/control-messages.ts) to a controller: `router.hello`, the
// welcome awaited, heartbeats answered and sent, `router.links` (a few links to other simulated routers), its
// terminators (`router.terminator.create` for the services it hosts) and `router.metrics` every interval. A channel
// that closes is dialed again at the next controller (`ctrl.welcome`'s and `ctrl.members`' members); a failed dial
// waits a bounded backoff. What it does not do: links, circuits, edge listeners (it carries no data).
//
// Scaling: each router dials from a loopback address of its own when the controllers are on 127.0.0.1 (a controller
// allows `ctrl.options.maxConnectionsPerSource` per address); one timer per duty for all routers (heartbeats and metrics on timer wheels, router-simulator-wheel.ts);
// the controller's big messages (the edge model, the welcome's router list, other routers' arrivals) are skipped
// unparsed (router-simulator-frames.ts); enrollment and dialing are bounded in concurrency.
//
// API: `await startRouterSimulator(options)` enrolls and connects the routers and returns a RouterSimulator:
// `counts()`, `waitConnected(n, ms)`, `stop()`. The enrollment and connection can also be run as steps (`enroll()`,
// then `connect()`) to time them apart.
import type { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { jwtVerify } from 'jose';
import { parseAddress } from '../common/config/address.ts';
import { encodeFrame } from '../common/framing/frame-codec.ts';
import { generateKeyPair, privateKeyToPem } from '../common/pki/key-pair.ts';
import { createCertificateRequest } from '../router/enroll/certificate-requests.ts';
import { httpsCall, verifiedServerCertificate } from '../router/enroll/enrollment-http.ts';
import { readEnrollmentClaims } from '../router/enroll/enrollment-token.ts';
import { controllerTrustOf, verifyControllerCertificate, type ControllerTrust } from '../router/run/controller-identity.ts';
import type { RouterLinks } from '../common/control-channel/control-messages.ts';
import { ControlFrameReader, hostedServiceIds, linksOf, loopbackSource, metricsOf, nextAddress, retryDelayMs, terminatorCreates } from './router-simulator-frames.ts';
import { retryDelayAfter } from './router-simulator-retry.ts';
import { TimerWheel } from './router-simulator-wheel.ts';
import { ProbeClient, type ProbeAnswer } from './write-probe.ts';

export interface RouterSimulatorOptions {
  /**
   * The controllers' control addresses (`tls:<host>:<port>`); router i dials address i mod n first. Empty or absent:
   * the `ctrlAddresses` of the enrollment JWTs, as a real router saves them at enrollment.
   */
  readonly controlAddresses?: readonly string[];
  /** `https://…/edge/management/v1` of a controller (the leader is best: every router made is a write). */
  readonly managementApi: string;
  /** An admin's management API session token. */
  readonly token: string;
  /** The CA bundle the controllers' certificates chain to. */
  readonly caPem: string;
  readonly routers: number;
  /** Services each router hosts (0: none, and the routers are not tunneler-enabled). */
  readonly terminatorsPerRouter: number;
  /** The services to host: router i hosts `terminatorsPerRouter` consecutive ones from (i × terminatorsPerRouter) mod their count. */
  readonly serviceIds: readonly string[];
  /** The terminator address the services' host.v1 config gives (`tcp:127.0.0.1:8080`): the controller checks it. */
  readonly terminatorAddress: string;
  /** Role attributes of router i (what Bind policies select it by); default none. */
  readonly roleAttributes?: (index: number) => string[];
  /** Router names are `<namePrefix>-<i>` (default `sim-<base36 time>`). */
  readonly namePrefix?: string;
  /** Routers being made or enrolled at once (default 16). */
  readonly enrollConcurrency?: number;
  /** Dials waiting for their welcome at once (default 64). */
  readonly connectConcurrency?: number;
  /** Links each router reports (default 3). */
  readonly linksPerRouter?: number;
  /** How often each router sends `router.metrics` (default 60 s, a router's `metrics.reportInterval`). */
  readonly metricsIntervalMs?: number;
  /** How often each router sends a heartbeat (default 10 s, a router's `ctrl.heartbeats.sendInterval`). */
  readonly heartbeatIntervalMs?: number;
  /**
   * Whether the hello says `edgeModelDeltas` (default true, as edgeward routers do): the controller then sends the
   * whole edge model at the welcome and deltas after. The simulator reads neither; it counts their bytes.
   */
  readonly edgeModelDeltas?: boolean;
  /**
   * Whether the hello says `routersChanged` with one link dialer in the group `default` and no link listener
   * (default true, as edgeward routers say it): the controller then names in the welcome and in its batched
   * `ctrl.routersChanged` only routers with a listener in that group, which no simulated router has. False: an older
   * router's hello, told of every router's arrival one `ctrl.routerConnected` at a time.
   */
  readonly routersChanged?: boolean;
  readonly progress?: (line: string) => void;
}

export interface RouterSimulatorCounts {
  readonly routers: number;
  readonly created: number;
  readonly enrolled: number;
  /** Enrollment calls tried again after a busy answer (429 or 503, after its Retry-After), and routers re-enrolled
   * because a timed-out redemption had gone through after all. */
  readonly enrollRetries: number;
  readonly reEnrollments: number;
  /** Welcomed and open now. */
  readonly connected: number;
  /** Every welcome so far (reconnections included). */
  readonly welcomes: number;
  readonly refusals: number;
  /** Welcomed channels that closed and were dialed again. */
  readonly reconnects: number;
  readonly failedDials: number;
  readonly terminatorsSent: number;
  readonly metricsSent: number;
  readonly heartbeatsAnswered: number;
  /** Bytes the controllers sent, by message type. */
  readonly bytesByType: Readonly<Record<string, number>>;
  /** Wall ms spent in each enrollment step, summed over the routers (create, read its JWT, key and CSRs, erott). */
  readonly enrollStepMs: Readonly<Record<string, number>>;
  /** performance.now() of the first and the latest welcome (undefined before any). */
  readonly firstWelcomeAt: number | undefined;
  readonly lastWelcomeAt: number | undefined;
}

/** Frames the simulator parses; every other type is skipped unparsed. */
const parsedTypes: ReadonlySet<string> = new Set(['hb', 'hbAck', 'ctrl.welcome', 'ctrl.refused', 'ctrl.members', 'req']);
const version = 'v0.0.0-router-simulator';
const welcomeTimeoutMs = 30_000;
const wheelSlots = 100;

interface SimulatedRouter {
  readonly index: number;
  readonly name: string;
  id: string;
  keyPem: string;
  certPem: string;
  address: string | undefined;
  socket: TLSSocket | undefined;
  reader: ControlFrameReader | undefined;
  welcomed: boolean;
  failures: number;
  latencyMs: number | undefined;
  links: RouterLinks['links'];
  retryTimer: NodeJS.Timeout | undefined;
}

export class RouterSimulator {
  private readonly routers: SimulatedRouter[] = [];
  private readonly probe: ProbeClient;
  private readonly heartbeats: TimerWheel<SimulatedRouter>;
  private readonly reports: TimerWheel<SimulatedRouter>;
  private readonly trust: ControllerTrust;
  private readonly timers: NodeJS.Timeout[] = [];
  private addresses: string[];
  private stopped = false;
  private dialing = 0;
  private readonly dialQueue: SimulatedRouter[] = [];
  private readonly bytesByType = new Map<string, number>();
  private readonly tallies = { created: 0, enrolled: 0, enrollRetries: 0, reEnrollments: 0, welcomes: 0, refusals: 0, reconnects: 0, failedDials: 0, terminatorsSent: 0, metricsSent: 0, heartbeatsAnswered: 0 };
  private connectedCount = 0;
  private readonly enrollStepMs: Record<string, number> = { create: 0, read: 0, csr: 0, erott: 0 };
  /** Each router's enrollment, create to certificates, in wall ms, in the order they finished. */
  private readonly enrollMs: number[] = [];
  private firstWelcomeAt: number | undefined;
  private lastWelcomeAt: number | undefined;
  private connectedWaiters: Array<() => void> = [];

  constructor(private readonly options: RouterSimulatorOptions) {
    if (options.terminatorsPerRouter > 0 && options.serviceIds.length === 0) throw new Error('routers that host services need serviceIds');
    this.addresses = [...(options.controlAddresses ?? [])];
    this.probe = new ProbeClient(options.caPem);
    this.trust = controllerTrustOf(options.caPem);
    this.heartbeats = new TimerWheel(wheelSlots);
    this.reports = new TimerWheel(wheelSlots);
    const prefix = options.namePrefix ?? `sim-${Date.now().toString(36)}`;
    for (let index = 0; index < options.routers; index++) {
      this.routers.push({ index, name: `${prefix}-${index}`, id: '', keyPem: '', certPem: '', address: undefined, socket: undefined, reader: undefined, welcomed: false, failures: 0, latencyMs: undefined, links: [], retryTimer: undefined });
    }
  }

  counts(): RouterSimulatorCounts {
    const bytes: Record<string, number> = Object.fromEntries(this.bytesByType);
    for (const router of this.routers) for (const [type, count] of router.reader?.bytesByType ?? []) bytes[type] = (bytes[type] ?? 0) + count;
    return { routers: this.routers.length, connected: this.connectedCount, ...this.tallies, bytesByType: bytes, enrollStepMs: { ...this.enrollStepMs }, firstWelcomeAt: this.firstWelcomeAt, lastWelcomeAt: this.lastWelcomeAt };
  }

  /** Each enrolled router's wall ms from its create to its certificates (all four steps), in the order they finished. */
  enrollLatenciesMs(): readonly number[] {
    return this.enrollMs;
  }

  /** The simulated routers' ids (after `enroll()`), in order. */
  routerIds(): string[] {
    return this.routers.map((router) => router.id);
  }

  /** Makes every router through the management API and enrolls it. */
  async enroll(): Promise<void> {
    const { managementApi, token } = this.options;
    const hosting = this.options.terminatorsPerRouter > 0;
    const controllerCerts = new Map<string, Promise<X509Certificate>>();
    await eachBounded(this.routers, this.options.enrollConcurrency ?? 16, () => this.stopped, async (router) => {
      const body = JSON.stringify({ name: router.name, isTunnelerEnabled: hosting, roleAttributes: this.options.roleAttributes?.(router.index) ?? [] });
      const began = performance.now();
      let stepBegan = began;
      const created = await this.patiently(() => this.managementCall(`creating edge router ${router.name}`, () => this.probe.post(`${managementApi}/edge-routers`, body, { 'zt-session': token }, 60_000)));
      // 201, or a retried create whose first attempt did go through (the name is then taken: the router is found by it).
      if (created.status === 201) router.id = (JSON.parse(created.text) as { data: { id: string } }).data.id;
      else router.id = await this.idByName(router.name, `creating edge router ${router.name}: HTTP ${created.status} ${created.text.slice(0, 300)}`);
      this.tallies.created++;
      this.enrollStepMs.create! += performance.now() - stepBegan;
      stepBegan = performance.now();
      const jwt = await this.enrollmentJwtOf(router);
      this.enrollStepMs.read! += performance.now() - stepBegan;
      if ((await this.enrollOne(router, jwt, controllerCerts)) === 'redeemed-unseen') {
        // A redemption that timed out went through after all: its certificates are lost, so the router is enrolled
        // again, as an operator would (`re-enroll`, then the new JWT).
        this.tallies.reEnrollments++;
        const again = await this.patiently(() => this.managementCall(`re-enrolling edge router ${router.name}`, () => this.probe.post(`${managementApi}/edge-routers/${router.id}/re-enroll`, '{}', { 'zt-session': token }, 60_000)));
        if (again.status !== 200) throw new Error(`re-enrolling ${router.name}: HTTP ${again.status} ${again.text.slice(0, 300)}`);
        if ((await this.enrollOne(router, await this.enrollmentJwtOf(router), controllerCerts)) !== 'enrolled') throw new Error(`enrolling ${router.name}: its token was used twice over`);
      }
      this.tallies.enrolled++;
      this.enrollMs.push(performance.now() - began);
      if (this.tallies.enrolled % 500 === 0) this.options.progress?.(`router simulator: ${this.tallies.enrolled} of ${this.routers.length} routers enrolled`);
    });
    if (this.stopped) throw new Error('the router simulator stopped while enrolling');
    const ids = this.routerIds();
    for (const router of this.routers) router.links = linksOf(router.index, ids, this.options.linksPerRouter ?? 3);
  }

  /** Dials every router's control channel (in bounded concurrency) and starts the heartbeat and metrics wheels. */
  connect(): void {
    if (this.addresses.length === 0) throw new Error('no control address: none given, and the enrollment JWTs named none');
    const tick = (wheel: TimerWheel<SimulatedRouter>, intervalMs: number, duty: (router: SimulatedRouter) => void) => {
      const timer = setInterval(() => {
        for (const router of wheel.advance()) duty(router);
      }, Math.max(1, Math.floor(intervalMs / wheelSlots)));
      this.timers.push(timer);
    };
    tick(this.heartbeats, this.options.heartbeatIntervalMs ?? 10_000, (router) => this.send(router, { type: 'hb', sentAt: performance.now() }));
    tick(this.reports, this.options.metricsIntervalMs ?? 60_000, (router) => {
      if (this.send(router, metricsOf(router.id, router.links, router.latencyMs, Date.now(), process.memoryUsage.rss()))) this.tallies.metricsSent++;
    });
    for (const router of this.routers) {
      router.address = this.addresses[router.index % this.addresses.length];
      this.queueDial(router);
    }
  }

  /** Resolves once `count` routers are connected at the same time; rejects after `timeoutMs`. */
  waitConnected(count: number, timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (this.connectedCount >= count) {
          clearTimeout(timer);
          resolve();
          return true;
        }
        return false;
      };
      const timer = setTimeout(() => {
        this.connectedWaiters = this.connectedWaiters.filter((waiter) => waiter !== wake);
        reject(new Error(`${this.connectedCount} of ${count} simulated routers connected after ${timeoutMs / 1000} s (${JSON.stringify({ ...this.tallies })})`));
      }, timeoutMs);
      const wake = () => {
        if (!check()) this.connectedWaiters.push(wake);
      };
      wake();
    });
  }

  /** Closes every channel and timer. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    for (const router of this.routers) {
      clearTimeout(router.retryTimer);
      router.socket?.destroy();
    }
    this.probe.close();
  }

  // ---- enrollment ------------------------------------------------------------------------------------------------

  /**
   * A management API call, tried again (at most 3 times) when the connection was reset: a pooled keep-alive connection the
   * controller closed as idle just as it was reused fails that way without the request having been read.
   */
  private async managementCall(what: string, call: () => Promise<ProbeAnswer>): Promise<ProbeAnswer> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (error) {
        // Each retry may meet another pooled connection closed the same way, never more than a few.
        if (!isConnectionReset(error) || attempt === 4) throw new Error(`${what}: ${(error as Error).message}`);
      }
    }
  }

  /** A call tried again while the controller answers busy (429, 503), after its Retry-After (router-simulator-retry.ts). */
  private async patiently<A extends { status: number; retryAfter?: string | undefined }>(call: () => Promise<A>): Promise<A> {
    for (let attempt = 1; ; attempt++) {
      const answer = await call();
      const delayMs = retryDelayAfter(answer, attempt, Date.now());
      if (delayMs === undefined || this.stopped) return answer;
      this.tallies.enrollRetries++;
      await new Promise((done) => setTimeout(done, delayMs));
    }
  }

  private async enrollmentJwtOf(router: SimulatedRouter): Promise<string> {
    const detail = await this.patiently(() => this.managementCall(`reading edge router ${router.name}`, () => this.probe.get(`${this.options.managementApi}/edge-routers/${router.id}`, { 'zt-session': this.options.token }, 60_000)));
    if (detail.status !== 200) throw new Error(`reading edge router ${router.name}: HTTP ${detail.status} ${detail.text.slice(0, 300)}`);
    const jwt = (JSON.parse(detail.text) as { data: { enrollmentJwt?: string | null } }).data.enrollmentJwt;
    if (typeof jwt !== 'string') throw new Error(`edge router ${router.name} has no enrollment JWT`);
    return jwt;
  }

  private async idByName(name: string, failure: string): Promise<string> {
    const filter = encodeURIComponent(`name = "${name}"`);
    const answer = await this.managementCall(`finding edge router ${name}`, () => this.probe.get(`${this.options.managementApi}/edge-routers?filter=${filter}`, { 'zt-session': this.options.token }, 60_000));
    const id = answer.status === 200 ? (JSON.parse(answer.text) as { data: Array<{ id: string }> }).data[0]?.id : undefined;
    if (id === undefined) throw new Error(failure);
    return id;
  }

  /** `redeemed-unseen`: a busy answer was tried again and the token was then already used (the first went through). */
  private async enrollOne(router: SimulatedRouter, jwt: string, controllerCerts: Map<string, Promise<X509Certificate>>): Promise<'enrolled' | 'redeemed-unseen'> {
    const claimed = readEnrollmentClaims(jwt, Date.now());
    if (!claimed.ok) throw new Error(`${router.name}: ${claimed.message}`);
    const { issuer, routerId, token, ctrlAddresses } = claimed.claims;
    if (this.addresses.length === 0) this.addresses = [...ctrlAddresses];
    // The controller's certificate is read once per issuer (a real router reads it once too: it enrolls once).
    let certificate = controllerCerts.get(issuer);
    if (!certificate) controllerCerts.set(issuer, (certificate = verifiedServerCertificate(issuer, this.options.caPem)));
    await jwtVerify(jwt.trim(), (await certificate).publicKey, { subject: routerId });
    let stepBegan = performance.now();
    const keyPem = await privateKeyToPem((await generateKeyPair()).privateKey);
    const csr = { sans: { dns: [`${router.name}.routers.sim.test`], ip: [], email: [], uri: [] } };
    const [certCsr, serverCertCsr] = await Promise.all([createCertificateRequest(keyPem, routerId, csr), createCertificateRequest(keyPem, routerId, csr)]);
    this.enrollStepMs.csr! += performance.now() - stepBegan;
    stepBegan = performance.now();
    const enroll = () => httpsCall({ url: `${issuer}/edge/client/v1/enroll/erott?token=${encodeURIComponent(token)}`, method: 'POST', json: { serverCertCsr, certCsr }, caPem: this.options.caPem, timeoutMs: 60_000 });
    // A fresh connection each time (as `router enroll` makes one): a reset is the connection's, tried once more.
    let triedAgain = false;
    const response = await this.patiently(async () => {
      const answer = await enroll().catch((error: unknown) => {
        if (isConnectionReset(error)) return enroll();
        throw new Error(`enrolling ${router.name}: ${(error as Error).message}`);
      });
      if (answer.status === 429 || answer.status === 503) triedAgain = true;
      return answer;
    });
    if (triedAgain && response.status === 400 && /already used/.test(response.body.toString('utf8'))) return 'redeemed-unseen';
    if (response.status !== 200) throw new Error(`enrolling ${router.name}: HTTP ${response.status} ${response.body.toString('utf8').slice(0, 300)}`);
    const data = (JSON.parse(response.body.toString('utf8')) as { data?: { cert?: unknown } }).data;
    if (typeof data?.cert !== 'string') throw new Error(`enrolling ${router.name}: no certificate in the answer`);
    this.enrollStepMs.erott! += performance.now() - stepBegan;
    router.keyPem = keyPem;
    router.certPem = data.cert;
    return 'enrolled';
  }

  // ---- control channels ------------------------------------------------------------------------------------------

  private queueDial(router: SimulatedRouter): void {
    if (this.stopped) return;
    this.dialQueue.push(router);
    this.pumpDials();
  }

  private pumpDials(): void {
    const limit = this.options.connectConcurrency ?? 64;
    while (!this.stopped && this.dialing < limit && this.dialQueue.length > 0) {
      this.dialing++;
      this.dial(this.dialQueue.shift()!);
    }
  }

  private dial(router: SimulatedRouter): void {
    const address = router.address ?? this.addresses[0]!;
    const parsed = parseAddress(address, ['tls'] as const);
    if (!parsed.ok) throw new Error(`bad control address ${address}: ${parsed.message}`);
    const { host, port } = parsed.value;
    // Each router dials from an address of its own, as real routers do (a controller bounds connections per source).
    const localAddress = host === '127.0.0.1' ? loopbackSource(router.index) : undefined;
    const socket = tlsConnect({ host, port, ...(isIP(host) ? {} : { servername: host }), ...(localAddress ? { localAddress } : {}), cert: router.certPem, key: router.keyPem, ca: this.options.caPem, rejectUnauthorized: true });
    router.socket = socket;
    router.reader = new ControlFrameReader(parsedTypes);
    router.welcomed = false;
    let settled = false;
    // The dial slot is given back at the welcome or the close, whichever comes first.
    const settle = () => {
      if (settled) return;
      settled = true;
      this.dialing--;
      this.pumpDials();
    };
    const welcomeTimer = setTimeout(() => socket.destroy(new Error(`no welcome within ${welcomeTimeoutMs} ms`)), welcomeTimeoutMs);
    socket.setNoDelay(true);
    socket.once('secureConnect', () => {
      const verdict = verifyControllerCertificate(socket.getPeerX509Certificate(), this.trust);
      if (!verdict.ok) {
        socket.destroy(new Error(`not a controller: ${verdict.reason}`));
        return;
      }
      socket.write(encodeFrame({ type: 'router.hello', routerId: router.id, version, linkListeners: [], supportedProtocols: {}, ...(this.options.edgeModelDeltas === false ? {} : { edgeModelDeltas: true }), ...(this.options.routersChanged === false ? {} : { routersChanged: true, linkDialerGroups: ['default'] }) }));
    });
    socket.on('data', (chunk: Buffer) => {
      let frames;
      try {
        frames = router.reader!.push(chunk);
      } catch (error) {
        socket.destroy(error as Error);
        return;
      }
      for (const frame of frames) {
        if (this.receive(router, socket, frame.type, frame.message)) {
          clearTimeout(welcomeTimer);
          settle();
        }
      }
    });
    socket.on('error', () => undefined);
    socket.once('close', () => {
      clearTimeout(welcomeTimer);
      settle();
      this.closed(router, socket);
    });
  }

  /** Handles one frame; true when it was the welcome. */
  private receive(router: SimulatedRouter, socket: TLSSocket, type: string, message: Record<string, unknown> | undefined): boolean {
    switch (type) {
      case 'hb':
        socket.write(encodeFrame({ type: 'hbAck', sentAt: message?.sentAt }));
        this.tallies.heartbeatsAnswered++;
        return false;
      case 'hbAck':
        if (typeof message?.sentAt === 'number') router.latencyMs = performance.now() - message.sentAt;
        return false;
      case 'req':
        // The controller asks nothing of routers today but ping; anything else is answered as unknown.
        socket.write(encodeFrame({ type: 'res', rid: message?.rid, ok: (message?.body as { op?: unknown } | undefined)?.op === 'ping' }));
        return false;
      case 'ctrl.members':
        this.followMembers(message?.members);
        return false;
      case 'ctrl.refused':
        this.tallies.refusals++;
        socket.destroy();
        return false;
      case 'ctrl.welcome':
        if (router.welcomed) return false;
        this.followMembers(message?.members);
        this.welcomed(router);
        return true;
      default:
        return false;
    }
  }

  private welcomed(router: SimulatedRouter): void {
    router.welcomed = true;
    router.failures = 0;
    this.tallies.welcomes++;
    this.connectedCount++;
    this.lastWelcomeAt = performance.now();
    this.firstWelcomeAt ??= this.lastWelcomeAt;
    this.heartbeats.add(router);
    this.reports.add(router);
    this.send(router, { type: 'router.links', links: router.links });
    const hosted = hostedServiceIds(router.index, this.options.serviceIds, this.options.terminatorsPerRouter);
    for (const create of terminatorCreates(hosted, this.options.terminatorAddress)) {
      if (this.send(router, create)) this.tallies.terminatorsSent += create.terminators.length;
    }
    for (const wake of this.connectedWaiters.splice(0)) wake();
  }

  private closed(router: SimulatedRouter, socket: TLSSocket): void {
    if (router.socket !== socket) return;
    router.socket = undefined;
    // The closed channel's byte counts are kept (a new reader starts at zero).
    for (const [type, count] of router.reader?.bytesByType ?? []) this.bytesByType.set(type, (this.bytesByType.get(type) ?? 0) + count);
    router.reader = undefined;
    this.heartbeats.remove(router);
    this.reports.remove(router);
    const wasWelcomed = router.welcomed;
    router.welcomed = false;
    if (wasWelcomed) this.connectedCount--;
    if (this.stopped) return;
    router.address = nextAddress(this.addresses, router.address);
    if (wasWelcomed) {
      // A lost controller: the next one at once (a little jitter, so its routers do not all land together).
      this.tallies.reconnects++;
      router.retryTimer = setTimeout(() => this.queueDial(router), Math.round(Math.random() * 1000));
      return;
    }
    this.tallies.failedDials++;
    router.failures++;
    router.retryTimer = setTimeout(() => this.queueDial(router), retryDelayMs(router.failures, Math.random()));
  }

  private followMembers(members: unknown): void {
    if (!Array.isArray(members)) return;
    const addresses = members.map((member) => (member as { address?: unknown })?.address).filter((address): address is string => typeof address === 'string' && address.startsWith('tls:'));
    if (addresses.length > 0 && addresses.join(',') !== this.addresses.join(',')) this.addresses = addresses;
  }

  private send(router: SimulatedRouter, message: unknown): boolean {
    const socket = router.socket;
    if (!socket || !router.welcomed || socket.destroyed) return false;
    socket.write(encodeFrame(message));
    return true;
  }
}

/** Makes, enrolls and connects the routers; resolves once every one is connected (within `connectTimeoutMs`, default 10 min). */
export async function startRouterSimulator(options: RouterSimulatorOptions & { readonly connectTimeoutMs?: number }): Promise<RouterSimulator> {
  const simulator = new RouterSimulator(options);
  try {
    await simulator.enroll();
    simulator.connect();
    await simulator.waitConnected(options.routers, options.connectTimeoutMs ?? 600_000);
    return simulator;
  } catch (error) {
    await simulator.stop();
    throw error;
  }
}

/** Runs `work` on every item, at most `concurrency` at once; the first failure stops the rest and is thrown. */
async function eachBounded<T>(items: readonly T[], concurrency: number, stopped: () => boolean, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: unknown;
  const worker = async () => {
    while (failure === undefined && !stopped() && next < items.length) {
      const item = items[next++]!;
      try {
        await work(item);
      } catch (error) {
        failure ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  if (failure !== undefined) throw failure;
}

function isConnectionReset(error: unknown): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === 'ECONNRESET' || code === 'EPIPE' || (typeof message === 'string' && /ECONNRESET|socket hang up/.test(message));
}
