// The router's circuits: the forwarding table and both kinds of end. A connection accepted by a tunnel listener asks
// the controller for a route (`circuit.create`), and the signed route is carried over the first link as `c.setup`;
// every router on the path checks it (signed by a controller of its network, issued recently, this router at that
// hop, the frame arriving over the link the route names), installs the circuit between its two links and passes the
// setup on; the last router dials the terminator's address (for a router-registered terminator only one it hosts for
// that service; for an administrator's `transport` terminator its address, if router.yml lists a transport dialer) and answers
// `c.ready` back along the path, after which bytes flow both ways (circuit-end.ts: credit flow control, half-close).
// Routes are taken only from a current cluster member named in them (route-authority.ts); the egress takes each route
// once (terminated-routes.ts) and signs its `c.ready`, which the ingress checks is the route's last router's
// (ready-proof.ts), so no router of the path can answer a setup in the host's place.
// A failed setup comes back as `c.fail` naming a router to avoid, and the ingress asks again (at most
// `maxAttempts` routes). A link that closes takes the circuits over it off the routers between it and the ends
// (`c.close` marked `reroute`); the ends keep their connections, suspended: the ingress asks for a new path to the
// same terminator under the same id and sets it up with `resume`, the egress takes it (only while orphaned, only a
// route newer than the one it holds and from the same ingress), and each end sends again what
// the other has not received (circuit-end.ts). With no new path the circuit ends and both connections are reset.
//
// Timers, from the forwarder section: every `idleTxInterval` ms (0: never) a circuit silent for `idleCircuitTimeout`
// ms is confirmed with its neighbours (`c.confirm`); one not confirmed within `xgressCloseCheckInterval` ms is
// un-routed. Egress dials go through the xgress dial queue (egress-dialer.ts).
//
// Bounds: each end refuses bytes beyond the window it granted (circuit-end.ts); bytes passed from one link into
// another are bounded per incoming link, which stops being read past a high-water mark (transit-backpressure.ts);
// forwarder.maxCircuits and maxCircuitsPerIdentity cap the table (circuit-limits.ts).
import type { X509Certificate } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { adminTerminatorProblem, transportBinding } from '../../common/circuits/terminator-address.ts';
import { routeDigest, RouteVerifier, routeSetupWindowMs, type CircuitRoute, type SignedRoute } from '../../common/circuits/circuit-route.ts';
import type { RouterCircuitReport } from '../../common/control-channel/control-messages.ts';
import { DataFrame } from '../../common/framing/frame-codec.ts';
import type { Logger } from '../../common/log/logger.ts';
import type { Clock } from '../../common/time/clock.ts';
import type { ForwarderConfig } from '../config/router-config.ts';
import type { CircuitLink, LinkManagerApi } from '../links/link-manager-api.ts';
import type { ControllerTrust } from '../run/controller-identity.ts';
import { CircuitEnd, defaultWindowBytes, type EndOutput, type EndStream } from './circuit-end.ts';
import { TurnReadySigner } from './turn-ready-signer.ts';
import { readCircuitFrame, type CircuitFrame, type FailFrame, type ReadyFrame, type SetupFrame } from './circuit-frames.ts';
import { EgressDialer } from './egress-dialer.ts';
import { circuitLimitProblem, type CircuitLimitProblem, type CircuitLimitTable } from './circuit-limits.ts';
import { defaultTransitMarks, TransitBackpressure, type TransitMarks } from './transit-backpressure.ts';
import { throttledTransitLog } from './transit-pause-log.ts';
import { ReadySigner, ReadyVerifier } from './ready-proof.ts';
import { ControllerVerdicts, routeAuthorityProblem } from './route-authority.ts';
import { E2eHostStream } from '../edge/e2e-host-stream.ts';
import { newKeyPair, type KxKeyPair } from '../../common/edge-protocol/e2e-crypto.ts';
import { sdkBinding, type SdkHosts } from '../edge/sdk-hosts.ts';
import type { Socket } from 'node:net';
import { defaultMaxTerminatedRoutes, TerminatedRoutes } from './terminated-routes.ts';

/** A circuit as the ingress reports it to its controller (the `router.circuit` message without its type). */
export type RouterCircuit = Omit<RouterCircuitReport, 'type'>;

type Side = { readonly kind: 'link'; readonly link: CircuitLink } | { readonly kind: 'end'; end: CircuitEnd | undefined } | { readonly kind: 'gone' };

type SetupResult = { readonly ok: true; readonly received?: number; readonly hostKey?: string } | { readonly ok: false; readonly reason: string; readonly avoid?: string };

interface Circuit {
  readonly id: string;
  route: CircuitRoute;
  /** [toward the ingress, toward the egress] */
  readonly sides: [Side, Side];
  /** `rerouting`: the ingress lost its path and is building another; `orphaned`: the egress lost its path and waits
   * for the ingress's new one. Both keep their connection, suspended. */
  state: 'setup' | 'up' | 'rerouting' | 'orphaned';
  /** performance.now() when it started re-routing or was orphaned. */
  since: number;
  /** The ingress's API session (an edge client's dial), asked for again on a re-route. */
  apiSession?: string;
  readonly createdAt: number;
  lastActivity: number;
  confirmSentAt: number | undefined;
  /** performance.now() when it came up (0 before). */
  upAt: number;
  /** The ingress's wait for `c.ready` / `c.fail`. */
  pending: ((result: SetupResult) => void) | undefined;
  /** At the ingress, the route whose `c.ready` it waits for (and its digest): the ready must be its egress's. */
  awaiting?: { readonly route: CircuitRoute; readonly digest: string };
}

export interface ForwarderTiming {
  /** How long a circuit may take from setup to ready (10 s). */
  readonly setupTimeoutMs: number;
  /** How long an egress dial may take (5 s). */
  readonly dialTimeoutMs: number;
  readonly windowBytes: number;
  /** Routes an ingress tries for one connection (3). */
  readonly maxAttempts: number;
  /** When a link stops being read for what it forwards into slower links (transit-backpressure.ts). */
  readonly transit: TransitMarks;
}

/** New paths a re-routing ingress tries (with pauses of 250 ms, 500 ms, …: 2.5 s in all, within the egress's wait). */
const rerouteAttempts = 5;

export const defaultForwarderTiming: ForwarderTiming = { setupTimeoutMs: 10_000, dialTimeoutMs: 5_000, windowBytes: defaultWindowBytes, maxAttempts: 3, transit: defaultTransitMarks };

export interface ForwarderDeps {
  readonly routerId: string;
  readonly links: Pick<LinkManagerApi, 'linkById' | 'onCircuitFrame' | 'onLinkClosed'>;
  /** identity.ca: route signers must chain to it. */
  readonly caPem: string;
  /** Which signers are controllers (the control channel's rule). */
  readonly controllerTrust: ControllerTrust;
  /** The cluster's member ids as the control channel last heard them (undefined before the first welcome): only they
   * sign routes. */
  readonly controllerMembers: () => ReadonlySet<string> | undefined;
  /** The router's enrolled certificate (chain) and its key: the egress signs `c.ready` with them. */
  readonly identity: { readonly certPem: string; readonly keyPem: string };
  /** serviceId → address this router hosts now (terminator-sync.ts). */
  readonly hosted: () => ReadonlyMap<string, string>;
  /** True when router.yml lists a `transport` dialer: only then does it dial administrators' terminators. */
  readonly transportDialer?: boolean;
  /** The Binds of SDKs on this router's edge listeners: the egress of a circuit to one sends the SDK a Dial. */
  readonly sdkHosts?: Pick<SdkHosts, 'problem' | 'dial'>;
  /** The certificate of the controller whose control channel is welcomed now (what answers `circuit.create`): a route
   * it signed itself is taken as its text without a second signature check at the ingress (circuit-route.ts). */
  readonly controllerCertificate?: () => X509Certificate | undefined;
  /** `circuit.create` on the control channel (`apiSession`: dial as that API session's identity; `resume`: a new path
   * for a live circuit, to the same terminator, under the same id). */
  readonly requestCircuit: (
    service: string,
    avoidRouters: readonly string[],
    apiSession?: string,
    resume?: { readonly circuitId: string; readonly terminatorId: string },
    sdk?: { readonly serviceSession?: string; readonly dialerKey?: string },
  ) => Promise<unknown>;
  readonly config: ForwarderConfig;
  /** Circuits this router is the ingress of: created, deleted, failed (sent to the controller as `router.circuit`). */
  readonly report?: (report: RouterCircuit) => void;
  readonly timing?: Partial<ForwarderTiming>;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** The egress's end toward a terminator, and the hosting side's end-to-end key when the dialer sent one. */
type HostedEnd = { readonly stream: EndStream; readonly hostKey?: string };

/** The ingress's connection, and the end it becomes once the host's key (if the route needs one) is known. */
interface IngressEnd {
  readonly stream: EndStream;
  wrap(hostKey: string | undefined): EndStream | undefined;
}

/** OpenZiti's router tunnel's words when an SDK host answers an encrypted dial without its key. */
const missingHostKey = 'service requires encryption, but public key header not returned';

/** How an ingress connection asks for its circuit, and hears how it went. */
export interface DialOptions {
  /** The API session token of the client dialing (edge listener); absent: the router's own identity dials. */
  readonly apiSession?: string;
  /** An SDK's Connect: the service session token it dialed with (the controller finds the service from it). */
  readonly serviceSession?: string;
  /** An SDK's Connect: its end-to-end encryption public key (base64), for the hosting side (in the signed route). */
  readonly dialerKey?: string;
  /** The controller (or the router) refused: the connection is the caller's to answer and close. */
  readonly onRefused?: (code: string, message: string) => void;
  /** The circuit is up; called before the connection's bytes start to flow. `hostKey`: the hosting side's
   * end-to-end encryption public key (base64), when the dialer sent one. */
  readonly onReady?: (circuitId: string, hostKey?: string) => void;
}

export interface ForwarderStats {
  readonly circuits: number;
  readonly created: number;
  readonly failed: number;
  /** Egress dials to a terminator's address that failed. */
  readonly dialFailures: number;
  readonly bytesIn: number;
  readonly bytesOut: number;
  /** Circuits closed because the far end sent beyond the window this router's end granted. */
  readonly windowOverruns: number;
  /** Circuits refused at forwarder.maxCircuits or forwarder.maxCircuitsPerIdentity (ingress and transit). */
  readonly limitRefusals: number;
  /** Times a link stopped being read for the bytes it forwards into slower links. */
  readonly linkReadPauses: number;
  /** Bytes this router's circuit ends received and their sockets have not taken yet (each at most one window). */
  readonly bufferedBytes: number;
}

export class Forwarder {
  private readonly circuits = new Map<string, Circuit>();
  private readonly verifier: RouteVerifier;
  private readonly readySigner: ReadySigner;
  /** The egress's readies of one turn, signed together when their ingress takes batches. */
  private readonly readySigns: TurnReadySigner;
  private readonly readyVerifier: ReadyVerifier;
  private readonly controllerVerdicts: ControllerVerdicts;
  private readonly terminated: TerminatedRoutes;
  private readonly dialer: EgressDialer;
  private readonly timing: ForwarderTiming;
  private readonly timers: NodeJS.Timeout[] = [];
  private stopped = false;
  private counts = { created: 0, failed: 0, dialFailures: 0, bytesIn: 0, bytesOut: 0, windowOverruns: 0, limitRefusals: 0 };
  private readonly transit: TransitBackpressure;

  constructor(private readonly deps: ForwarderDeps) {
    this.timing = { ...defaultForwarderTiming, ...(deps.timing ?? {}) };
    this.verifier = new RouteVerifier(deps.caPem);
    this.terminated = new TerminatedRoutes(routeSetupWindowMs, defaultMaxTerminatedRoutes, deps.clock.now());
    this.readySigner = new ReadySigner(deps.identity.keyPem, deps.identity.certPem);
    this.readySigns = new TurnReadySigner(this.readySigner, (run) => setImmediate(run));
    this.readyVerifier = new ReadyVerifier(deps.caPem, deps.controllerTrust.trustDomains);
    this.controllerVerdicts = new ControllerVerdicts(deps.controllerTrust);
    const { config } = deps;
    this.dialer = new EgressDialer({
      queueLength: config.xgressDialQueueLength,
      workers: config.xgressDialWorkerCount,
      dwellMs: config.xgressDialDwellTime,
      timeoutMs: this.timing.dialTimeoutMs,
    });
    this.transit = new TransitBackpressure(this.timing.transit, throttledTransitLog(deps.logger, deps.clock, this.timing.transit));
    deps.links.onCircuitFrame((link, frame) => this.linkFrame(link, frame));
    deps.links.onLinkClosed((link) => this.linkClosed(link));
  }

  start(): void {
    this.timers.push(setInterval(() => this.sweepSetups(), 1000));
    if (this.deps.config.idleTxInterval > 0) this.timers.push(setInterval(() => this.sweepIdle(), this.deps.config.idleTxInterval));
    for (const timer of this.timers) timer.unref();
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers.splice(0)) clearInterval(timer);
    this.dialer.stop();
    for (const circuit of [...this.circuits.values()]) this.teardown(circuit, undefined, 'router stopping', false);
  }

  /**
   * Closes these circuits (or every one) at once, both ends reset and the other routers of each path told: the
   * controller revoked them (router/run/circuit-revocation.ts). Ids it does not hold are skipped; returns how many closed.
   */
  closeCircuits(ids: Iterable<string> | 'all', reason: string): number {
    let closed = 0;
    for (const id of ids === 'all' ? [...this.circuits.keys()] : ids) {
      const circuit = this.circuits.get(id);
      if (!circuit) continue;
      this.teardown(circuit, undefined, reason, false);
      closed++;
    }
    return closed;
  }

  /** The live circuits this router is the ingress of, as the controller is told after each welcome (revocation). */
  ingressCircuits(): Array<{ circuitId: string; serviceId: string; identityId: string; apiSession?: string }> {
    const live: Array<{ circuitId: string; serviceId: string; identityId: string; apiSession?: string }> = [];
    for (const circuit of this.circuits.values()) {
      if (circuit.sides[0].kind !== 'end' || circuit.state === 'setup') continue;
      const { route } = circuit;
      live.push({ circuitId: circuit.id, serviceId: route.serviceId, identityId: route.identityId, ...(circuit.apiSession !== undefined ? { apiSession: circuit.apiSession } : {}) });
    }
    return live;
  }

  stats(): ForwarderStats {
    let bufferedBytes = 0;
    for (const circuit of this.circuits.values()) for (const side of circuit.sides) if (side.kind === 'end' && side.end) bufferedBytes += side.end.heldBytes;
    return { circuits: this.circuits.size, ...this.counts, linkReadPauses: this.transit.pauses, bufferedBytes };
  }

  /** A connection for `service` arrived at a tunnel listener (accepted paused): route it, or close it. */
  async dial(service: string, socket: EndStream, listener: string, options: DialOptions = {}): Promise<void> {
    const startedAt = performance.now();
    const avoid: string[] = [];
    socket.on('error', () => undefined);
    let failure = { code: 'SETUP_FAILED', message: 'no route could be set up' };
    // A connection without an SDK of its own (a tunnel listener's, a CONNECT client's): this router is its end of any
    // end-to-end encryption, with a key pair made for it. The controller puts the key in the route only when the
    // terminator is an SDK's on a service that requires encryption.
    const ownKeys = options.serviceSession === undefined ? newKeyPair() : undefined;
    const dialerKey = options.dialerKey ?? ownKeys?.publicKey.toString('base64');
    for (let attempt = 1; attempt <= this.timing.maxAttempts; attempt++) {
      if (this.stopped || socket.destroyed) return;
      // Full already: refused before the controller is asked.
      const full = this.limitProblem();
      if (full) return this.limited(socket, service, listener, full, options);
      let answer: unknown;
      try {
        answer = await this.deps.requestCircuit(service, [...avoid], options.apiSession, undefined, {
          ...(options.serviceSession !== undefined ? { serviceSession: options.serviceSession } : {}),
          ...(dialerKey !== undefined ? { dialerKey } : {}),
        });
      } catch (error) {
        this.refused(socket, service, listener, 'CONTROLLER_UNAVAILABLE', (error as Error).message, options);
        return;
      }
      const refused = (answer as { refused?: { code?: unknown; message?: unknown } } | null)?.refused;
      if (refused) {
        this.refused(socket, service, listener, String(refused.code), String(refused.message), options);
        return;
      }
      const signed = (answer as { route?: unknown } | null)?.route;
      // Read in the turn the answer arrived in (only microtasks since): the channel that answered, or none.
      const verdict = this.verify(signed, this.deps.controllerCertificate?.());
      if (!verdict.ok) {
        this.refused(socket, service, listener, 'INVALID_ROUTE', verdict.reason, options);
        return;
      }
      // Checked again in the turn that installs the circuit: dials that waited on the controller together count.
      const limit = this.limitProblem(options.apiSession !== undefined ? verdict.route.identityId : undefined);
      if (limit) return this.limited(socket, service, listener, limit, options);
      const ingress = this.ingressEnd(verdict.route, socket, ownKeys);
      const result = await this.build(verdict.route, signed as SignedRoute, ingress, options, startedAt);
      if (result.ok) return;
      this.counts.failed++;
      failure = { code: 'SETUP_FAILED', message: result.reason };
      const { route } = verdict;
      this.deps.report?.({
        event: 'failed',
        circuitId: route.circuitId,
        serviceId: route.serviceId,
        clientId: route.identityId,
        terminatorId: route.terminator.id,
        routers: [...route.routers],
        links: [...route.links],
        failureCause: 'SETUP_FAILED',
        reason: result.reason,
      });
      this.deps.logger.warn('circuit setup failed', { circuitId: verdict.route.circuitId, service, attempt, reason: result.reason, ...(result.avoid ? { avoid: result.avoid } : {}) });
      if (!result.avoid || avoid.includes(result.avoid)) break;
      avoid.push(result.avoid);
    }
    if (options.onRefused && !socket.destroyed) options.onRefused(failure.code, failure.message);
    else socket.destroy();
  }

  // ---- ingress ------------------------------------------------------------------------------------------------

  private async build(route: CircuitRoute, signed: SignedRoute, ingress: IngressEnd, options: DialOptions, startedAt: number): Promise<SetupResult> {
    if (route.routers[0] !== this.deps.routerId) return { ok: false, reason: 'the route does not start at this router' };
    if (this.circuits.has(route.circuitId)) return { ok: false, reason: 'circuit id already in use' };
    if (route.routers.length === 1) return this.buildLocal(route, ingress, options, startedAt);
    const socket = ingress.stream;
    const next = this.deps.links.linkById(route.links[0]!);
    if (!next || next.destRouterId !== route.routers[1]) return { ok: false, reason: `link ${route.links[0]} to router ${route.routers[1]} is gone`, avoid: route.routers[1]! };
    const circuit = this.install(route, [{ kind: 'end', end: undefined }, { kind: 'link', link: next }]);
    circuit.awaiting = { route, digest: routeDigest(signed) };
    if (options.apiSession !== undefined) circuit.apiSession = options.apiSession;
    // The end is attached in the same turn as `c.ready` arrives: frames right behind it in the same read (a server
    // that speaks first, or one that closes at once) find the circuit up, not half set up.
    return new Promise<SetupResult>((resolve) => {
      circuit.pending = (outcome) => {
        circuit.pending = undefined;
        if (outcome.ok) {
          if (socket.destroyed) {
            this.teardown(circuit, 0, 'the client went away during setup', false);
          } else {
            const end = ingress.wrap(outcome.hostKey);
            if (end === undefined) {
              this.teardown(circuit, 0, missingHostKey, false);
              return resolve({ ok: false, reason: missingHostKey });
            }
            options.onReady?.(route.circuitId, outcome.hostKey);
            this.attach(circuit, 0, end);
            this.created(circuit, startedAt);
          }
        }
        resolve(outcome);
      };
      next.send({ type: 'c.setup', circuitId: route.circuitId, route: signed, hop: 1 } satisfies SetupFrame);
    });
  }

  /** The terminator is on this router: both ends here, no link. */
  private async buildLocal(route: CircuitRoute, ingress: IngressEnd, options: DialOptions, startedAt: number): Promise<SetupResult> {
    const socket = ingress.stream;
    const problem = this.hostingProblem(route);
    if (problem) return { ok: false, reason: problem, avoid: this.deps.routerId };
    const circuit = this.install(route, [{ kind: 'end', end: undefined }, { kind: 'end', end: undefined }]);
    if (options.apiSession !== undefined) circuit.apiSession = options.apiSession;
    let hosted: HostedEnd;
    try {
      hosted = await this.dialTerminator(route);
    } catch (error) {
      this.circuits.delete(circuit.id);
      this.counts.dialFailures++;
      return { ok: false, reason: (error as Error).message, avoid: this.deps.routerId };
    }
    if (socket.destroyed || this.circuits.get(circuit.id) !== circuit) {
      hosted.stream.destroy();
      this.circuits.delete(circuit.id);
      return { ok: true };
    }
    const end = ingress.wrap(hosted.hostKey);
    if (end === undefined) {
      hosted.stream.destroy();
      this.circuits.delete(circuit.id);
      return { ok: false, reason: missingHostKey };
    }
    options.onReady?.(route.circuitId, hosted.hostKey);
    this.attach(circuit, 1, hosted.stream);
    this.attach(circuit, 0, end);
    this.created(circuit, startedAt);
    return { ok: true };
  }

  private created(circuit: Circuit, startedAt: number): void {
    circuit.state = 'up';
    circuit.upAt = performance.now();
    this.counts.created++;
    const { route } = circuit;
    this.deps.logger.info('circuit created', { circuitId: circuit.id, service: route.serviceName, path: route.routers, terminatorId: route.terminator.id });
    this.deps.report?.({ ...this.describe(circuit), event: 'created', creationMs: Math.round((circuit.upAt - startedAt) * 1000) / 1000 });
  }

  private describe(circuit: Circuit): Omit<RouterCircuit, 'event'> {
    const { route } = circuit;
    return {
      circuitId: circuit.id,
      serviceId: route.serviceId,
      clientId: route.identityId,
      terminatorId: route.terminator.id,
      routers: [...route.routers],
      links: [...route.links],
    };
  }

  private limitProblem(edgeIdentity?: string): CircuitLimitProblem | undefined {
    return circuitLimitProblem(this.limitTable, this.deps.config, edgeIdentity);
  }

  private readonly limitTable: CircuitLimitTable = {
    circuitCount: () => this.circuits.size,
    edgeCircuitsOf: (identityId) => {
      let count = 0;
      for (const circuit of this.circuits.values()) if (circuit.apiSession !== undefined && circuit.sides[0].kind === 'end' && circuit.route.identityId === identityId) count++;
      return count;
    },
  };

  /** A connection refused at a circuit cap: `circuit refused` names the code and the config key. */
  private limited(socket: EndStream, service: string, listener: string, problem: CircuitLimitProblem, options: DialOptions): void {
    this.counts.limitRefusals++;
    this.deps.logger.warn('circuit refused', { service, listener, code: problem.code, reason: problem.message, limit: problem.limit });
    this.counts.failed++;
    if (options.onRefused) options.onRefused(problem.code, problem.message);
    else socket.destroy();
  }

  private refused(socket: EndStream, service: string, listener: string, code: string, reason: string, options: DialOptions): void {
    this.counts.failed++;
    this.deps.logger.warn('circuit refused', { service, listener, code, reason });
    if (options.onRefused) options.onRefused(code, reason);
    else socket.destroy();
  }

  // ---- link frames ------------------------------------------------------------------------------------------

  private linkFrame(link: CircuitLink, value: unknown): void {
    if (value instanceof DataFrame) {
      const circuit = this.circuits.get(value.circuitId);
      const from = circuit ? sideOf(circuit, link) : undefined;
      if (circuit === undefined || from === undefined || circuit.state !== 'up') return;
      circuit.lastActivity = performance.now();
      this.forwardData(circuit, from, value.parts, value.length);
      return;
    }
    const frame = readCircuitFrame(value);
    if (!frame) return;
    if (frame.type === 'c.setup') return this.setup(link, frame);
    const circuit = this.circuits.get(frame.circuitId);
    const from = circuit ? sideOf(circuit, link) : undefined;
    if (circuit === undefined || from === undefined) {
      // Only a confirmation is answered: the asker un-routes what nobody here routes.
      if (frame.type === 'c.confirm') link.send({ type: 'c.close', circuitId: frame.circuitId, graceful: false, reason: 'unknown circuit' }, 'ack');
      return;
    }
    this.circuitFrame(circuit, from, frame, link);
  }

  private circuitFrame(circuit: Circuit, from: 0 | 1, frame: CircuitFrame, link: CircuitLink): void {
    switch (frame.type) {
      case 'c.ready':
        if (from !== 1 || (circuit.state !== 'setup' && circuit.state !== 'rerouting')) return;
        if (circuit.pending) {
          const problem = this.readyProblem(circuit, frame);
          if (problem) return this.readyRefused(circuit, problem);
          return circuit.pending({ ok: true, ...(frame.received !== undefined ? { received: frame.received } : {}), ...(frame.hostKey !== undefined ? { hostKey: frame.hostKey } : {}) });
        }
        circuit.state = 'up';
        return this.sendToward(circuit, 0, frame);
      case 'c.fail':
        if (from !== 1 || (circuit.state !== 'setup' && circuit.state !== 'rerouting')) return;
        // A re-route's new path failed: the circuit (and its suspended ends) stays; rebuild() tries another.
        if (circuit.state === 'rerouting') {
          circuit.sides[1] = { kind: 'gone' };
          circuit.pending?.({ ok: false, reason: frame.reason, ...(frame.avoid ? { avoid: frame.avoid } : {}) });
          return;
        }
        this.circuits.delete(circuit.id);
        if (circuit.pending) return circuit.pending({ ok: false, reason: frame.reason, ...(frame.avoid ? { avoid: frame.avoid } : {}) });
        return this.sendToward(circuit, 0, frame);
      case 'c.ack':
        return this.forward(circuit, from, { kind: 'ack', bytes: frame.bytes });
      case 'c.fin':
        return this.forward(circuit, from, { kind: 'fin' });
      case 'c.close':
        if (frame.reroute && this.pathLost(circuit, from, frame.reason)) return;
        return this.teardown(circuit, from, frame.reason, frame.graceful, frame.reroute === true);
      case 'c.confirm':
        return link.send({ type: 'c.confirmed', circuitId: circuit.id }, 'ack');
      case 'c.confirmed':
        circuit.lastActivity = performance.now();
        circuit.confirmSentAt = undefined;
        return;
    }
  }

  /** Something from side `from` goes to the other side: over its link, or into its end. */
  private forward(circuit: Circuit, from: 0 | 1, output: EndOutput): void {
    const to = from === 0 ? 1 : 0;
    const side = circuit.sides[to];
    if (output.kind === 'close') return this.teardown(circuit, from, output.reason, output.graceful);
    if (output.kind === 'data') return this.forwardData(circuit, from, output.data, output.data.length);
    if (side.kind === 'gone') return;
    if (side.kind === 'link') {
      if (output.kind === 'ack') side.link.send({ type: 'c.ack', circuitId: circuit.id, bytes: output.bytes }, 'ack');
      else side.link.send({ type: 'c.fin', circuitId: circuit.id });
      return;
    }
    const end = side.end;
    if (!end) return;
    if (output.kind === 'ack') end.acknowledged(output.bytes);
    else end.finished();
  }

  /** Bytes from side `from` (one buffer, or the parts a data frame was read in: passed on uncopied) to the other. */
  private forwardData(circuit: Circuit, from: 0 | 1, data: Buffer | readonly Buffer[], length: number): void {
    const side = circuit.sides[from === 0 ? 1 : 0];
    if (side.kind === 'link') {
      const source = circuit.sides[from];
      if (source.kind === 'link' && !side.link.closed) side.link.sendData(circuit.id, data, this.transit.hold(source.link, side.link, length));
      else side.link.sendData(circuit.id, data);
    } else if (side.kind === 'end' && side.end) {
      this.counts.bytesOut += length;
      side.end.deliver(data, length);
    }
  }

  // ---- setup at the other routers of the path ----------------------------------------------------------------

  private setup(link: CircuitLink, frame: SetupFrame): void {
    const fail = (reason: string, avoid?: string) => {
      this.deps.logger.warn('circuit setup refused', { circuitId: frame.circuitId, from: link.destRouterId, reason });
      link.send({ type: 'c.fail', circuitId: frame.circuitId, reason, ...(avoid ? { avoid } : {}) } satisfies FailFrame);
    };
    const verdict = this.verify(frame.route);
    if (!verdict.ok) return fail(verdict.reason);
    const { route } = verdict;
    const { hop } = frame;
    if (route.circuitId !== frame.circuitId) return fail('the setup names another circuit than its route');
    if (route.routers[hop] !== this.deps.routerId) return fail(`this router is not hop ${hop} of the route`);
    if (route.links[hop - 1] !== link.id || link.destRouterId !== route.routers[hop - 1]) return fail('the setup came over a link the route does not name');
    const last = route.routers.length - 1;
    if (frame.resume !== undefined) {
      if (hop === last) return this.resumeHere(link, route, routeDigest(frame.route as SignedRoute), frame.resume, fail);
      // An entry of the circuit's old path that no close has reached yet: the new path replaces it.
      const stale = this.circuits.get(route.circuitId);
      if (stale && stale.state === 'up' && stale.sides.every((side) => side.kind === 'link')) this.circuits.delete(route.circuitId);
    }
    if (this.circuits.has(route.circuitId)) return fail('circuit id already in use');
    const full = this.limitProblem();
    if (full) {
      this.counts.limitRefusals++;
      return fail(full.message, this.deps.routerId);
    }
    if (hop < last) {
      const next = this.deps.links.linkById(route.links[hop]!);
      if (!next || next.destRouterId !== route.routers[hop + 1]) return fail(`link ${route.links[hop]} to router ${route.routers[hop + 1]} is gone`, route.routers[hop + 1]);
      this.install(route, [{ kind: 'link', link }, { kind: 'link', link: next }]);
      next.send({ type: 'c.setup', circuitId: route.circuitId, route: frame.route, hop: hop + 1, ...(frame.resume !== undefined ? { resume: frame.resume } : {}) } satisfies SetupFrame);
      return;
    }
    const problem = this.hostingProblem(route);
    if (problem) return fail(problem, this.deps.routerId);
    const digest = routeDigest(frame.route as SignedRoute);
    const claimed = this.terminated.claim(digest, route.issuedAt, this.deps.clock.now());
    if (!claimed.ok) return fail(claimed.reason);
    const circuit = this.install(route, [{ kind: 'link', link }, { kind: 'end', end: undefined }]);
    this.dialTerminator(route).then(
      (hosted) => {
        const gone = () => this.circuits.get(circuit.id) !== circuit || link.closed;
        if (gone()) {
          hosted.stream.destroy();
          return;
        }
        const { hostKey } = hosted;
        // The host's connection is read only once the ready is on its way (signed at the end of this turn when the
        // ingress takes batches): no byte of the host's can reach the link before the ready.
        const ignoreError = () => undefined;
        hosted.stream.on('error', ignoreError);
        this.readySigns.sign({ circuitId: circuit.id, routeDigest: digest, received: undefined, hostKey }, route.readyBatches === true, (proof) => {
          hosted.stream.off('error', ignoreError);
          if (gone()) {
            hosted.stream.destroy();
            return;
          }
          this.attach(circuit, 1, hosted.stream);
          circuit.state = 'up';
          link.send({ type: 'c.ready', circuitId: circuit.id, proof, ...(hostKey ? { hostKey } : {}) } satisfies ReadyFrame);
          this.counts.created++;
          this.deps.logger.info('circuit terminated here', { circuitId: circuit.id, service: route.serviceName, address: route.terminator.address });
        });
      },
      (error: Error) => {
        if (this.circuits.get(circuit.id) !== circuit) return;
        this.circuits.delete(circuit.id);
        this.counts.dialFailures++;
        fail(error.message, this.deps.routerId);
      },
    );
  }

  /**
   * The egress end of a live circuit takes the new path its ingress built: only while it is orphaned (its old path
   * lost), only a route issued after the one it holds, requested by the same ingress for the same circuit, and only
   * once; so a router once on the path can neither take a circuit over nor replay an older re-route.
   */
  private resumeHere(link: CircuitLink, route: CircuitRoute, digest: string, ingressReceived: number, fail: (reason: string, avoid?: string) => void): void {
    const held = this.circuits.get(route.circuitId);
    const egress = held?.sides[1];
    if (!held || egress?.kind !== 'end' || !egress.end || held.state === 'setup') return fail('no circuit to resume here');
    const old = held.route;
    if (old.routers[0] !== route.routers[0]) return fail(`the resumed route was not requested by the circuit's ingress (router ${old.routers[0]})`);
    if (old.identityId !== route.identityId || old.terminator.id !== route.terminator.id || old.serviceId !== route.serviceId) {
      return fail("the resumed route is another circuit's");
    }
    if (held.state !== 'orphaned') return fail('the circuit has not lost its path here: only an orphaned egress takes a new one');
    if (route.issuedAt <= old.issuedAt) return fail('the resumed route is not newer than the one the circuit holds');
    const claimed = this.terminated.claim(digest, route.issuedAt, this.deps.clock.now());
    if (!claimed.ok) return fail(claimed.reason);
    const previous = held.sides[0];
    if (previous.kind === 'link' && previous.link.id !== link.id) previous.link.send({ type: 'c.close', circuitId: held.id, graceful: false, reason: 're-routed' });
    egress.end.suspend();
    held.sides[0] = { kind: 'link', link };
    held.route = route;
    held.state = 'up';
    held.lastActivity = performance.now();
    link.send({ type: 'c.ready', circuitId: held.id, received: egress.end.received, proof: this.readySigner.sign(held.id, digest, egress.end.received) } satisfies ReadyFrame);
    egress.end.resume(ingressReceived);
    this.deps.logger.info('circuit re-routed here', { circuitId: held.id, path: route.routers });
  }

  /**
   * A link of the path is gone (`from` is the side it was on). An end of the circuit on this router keeps its
   * connection: the ingress builds another path, the egress waits for it. True when it did; false for a middle
   * router, which tears its entry down and passes the news on.
   */
  private pathLost(circuit: Circuit, from: 0 | 1, reason: string): boolean {
    if (circuit.state !== 'up' || this.stopped) return false;
    const other = circuit.sides[from === 0 ? 1 : 0];
    if (other.kind !== 'end' || !other.end) return false;
    circuit.sides[from] = { kind: 'gone' };
    circuit.since = performance.now();
    other.end.suspend();
    if (from === 1) {
      circuit.state = 'rerouting';
      this.deps.logger.info('circuit re-routing: a link of its path was lost', { circuitId: circuit.id, service: circuit.route.serviceName, reason });
      void this.rebuild(circuit, reason);
    } else {
      circuit.state = 'orphaned';
      this.deps.logger.info('circuit waiting for a new path: a link of its path was lost', { circuitId: circuit.id, service: circuit.route.serviceName, reason });
    }
    return true;
  }

  /** The ingress asks for a new path to the same terminator and sets it up with `resume`; else the circuit ends. */
  private async rebuild(circuit: Circuit, reason: string): Promise<void> {
    const ingress = circuit.sides[0];
    if (ingress.kind !== 'end' || !ingress.end) return;
    const end = ingress.end;
    const avoid: string[] = [];
    const old = circuit.route;
    let failure = reason;
    // The terminator's router is never avoided: the egress holds the connection. A path through a link that is
    // already gone (the controllers learn of it a moment later) is retried after a pause.
    const avoidable = (router: string | undefined) => router !== undefined && router !== old.terminator.routerId && !avoid.includes(router);
    for (let attempt = 1; attempt <= rerouteAttempts; attempt++) {
      if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, 250 * (attempt - 1)));
      if (this.circuits.get(circuit.id) !== circuit || circuit.state !== 'rerouting') return;
      let answer: unknown;
      try {
        answer = await this.deps.requestCircuit(old.serviceName, [...avoid], circuit.apiSession, { circuitId: circuit.id, terminatorId: old.terminator.id });
      } catch (error) {
        failure = (error as Error).message;
        break;
      }
      if (this.circuits.get(circuit.id) !== circuit || circuit.state !== 'rerouting') return;
      const refused = (answer as { refused?: { code?: unknown; message?: unknown } } | null)?.refused;
      if (refused) {
        failure = `${String(refused.code)}: ${String(refused.message)}`;
        break;
      }
      const signed = (answer as { route?: unknown } | null)?.route;
      const verdict = this.verify(signed, this.deps.controllerCertificate?.());
      if (!verdict.ok) {
        failure = verdict.reason;
        break;
      }
      const route = verdict.route;
      if (route.circuitId !== circuit.id || route.terminator.id !== old.terminator.id || route.routers[0] !== this.deps.routerId || route.routers.length < 2) {
        failure = 'the controller answered another circuit';
        break;
      }
      const next = this.deps.links.linkById(route.links[0]!);
      if (!next || next.destRouterId !== route.routers[1]) {
        if (avoidable(route.routers[1])) avoid.push(route.routers[1]!);
        failure = `link ${route.links[0]} to router ${route.routers[1]} is gone`;
        continue;
      }
      circuit.sides[1] = { kind: 'link', link: next };
      circuit.awaiting = { route, digest: routeDigest(signed as SignedRoute) };
      const result = await new Promise<SetupResult>((resolve) => {
        circuit.pending = (outcome) => {
          circuit.pending = undefined;
          resolve(outcome);
        };
        next.send({ type: 'c.setup', circuitId: circuit.id, route: signed, hop: 1, resume: end.received } satisfies SetupFrame);
      });
      if (this.circuits.get(circuit.id) !== circuit) return;
      if (result.ok) {
        circuit.route = route;
        circuit.state = 'up';
        circuit.lastActivity = performance.now();
        end.resume(result.received ?? 0);
        this.deps.logger.info('circuit re-routed', { circuitId: circuit.id, service: route.serviceName, path: route.routers });
        this.deps.report?.({ ...this.describe(circuit), event: 'pathUpdated' });
        return;
      }
      circuit.sides[1] = { kind: 'gone' };
      failure = result.reason;
      if (avoidable(result.avoid)) avoid.push(result.avoid!);
    }
    if (this.circuits.get(circuit.id) !== circuit) return;
    this.deps.logger.warn('circuit not re-routed: closing it', { circuitId: circuit.id, service: old.serviceName, reason: failure });
    this.teardown(circuit, undefined, `no new path: ${failure}`, false);
  }

  /** `deliveredBy`: the controller certificate of the channel the route came over, when it came from a controller. */
  private verify(signed: unknown, deliveredBy?: X509Certificate): { ok: true; route: CircuitRoute } | { ok: false; reason: string } {
    const now = this.deps.clock.now();
    const verdict = this.verifier.verify(signed, now, deliveredBy);
    if (!verdict.ok) return verdict;
    const problem = routeAuthorityProblem(this.controllerVerdicts.of(verdict.signer), verdict.route, this.deps.controllerMembers());
    if (problem) return { ok: false, reason: problem };
    if (Math.abs(now - verdict.route.issuedAt) > routeSetupWindowMs) return { ok: false, reason: 'the route is too old (or from the future)' };
    return { ok: true, route: verdict.route };
  }

  /** At the ingress: why a `c.ready` is not the awaited route's egress's, or undefined when it is. */
  private readyProblem(circuit: Circuit, frame: ReadyFrame): string | undefined {
    const awaiting = circuit.awaiting;
    if (!awaiting) return 'no route is awaiting a ready';
    const { route, digest } = awaiting;
    return this.readyVerifier.problem(
      frame.proof,
      { circuitId: circuit.id, routeDigest: digest, received: frame.received, hostKey: frame.hostKey, egressRouterId: route.routers[route.routers.length - 1]!, egressFingerprint: route.egressFingerprint },
      this.deps.clock.now(),
    );
  }

  /**
   * A ready that is not the egress's fails the setup: the path built so far is closed (on a re-route, marked so that
   * the real egress keeps its connection for another path) and the next attempt avoids the next hop.
   */
  private readyRefused(circuit: Circuit, reason: string): void {
    const next = circuit.sides[1];
    const avoid = circuit.awaiting?.route.routers[1];
    const rerouting = circuit.state === 'rerouting';
    this.deps.logger.warn('circuit ready refused', { circuitId: circuit.id, reason, ...(next.kind === 'link' ? { from: next.link.destRouterId } : {}) });
    if (next.kind === 'link') next.link.send({ type: 'c.close', circuitId: circuit.id, graceful: false, reason: 'the ready was refused', ...(rerouting ? { reroute: true } : {}) });
    if (rerouting) circuit.sides[1] = { kind: 'gone' };
    else this.circuits.delete(circuit.id);
    circuit.pending?.({ ok: false, reason, ...(avoid ? { avoid } : {}) });
  }

  /**
   * The egress end for a dialed service socket: the socket itself, or, when an SDK dialer sent its key, the socket
   * behind this router's end-to-end encryption as the hosting side (e2e-host-stream.ts) and the key to answer.
   */
  private hostEnd(route: CircuitRoute, socket: Socket): HostedEnd {
    if (route.dialerKey === undefined) return { stream: socket };
    return E2eHostStream.host(socket, route.dialerKey);
  }

  /**
   * The ingress connection as the circuit's end: itself, or, when the route carries this router's own key (a plain
   * client's circuit to an SDK host that requires encryption), wrapped as the dialing side of the encryption once the
   * host's key is known (undefined when the host sent none).
   */
  private ingressEnd(route: CircuitRoute, socket: EndStream, ownKeys: KxKeyPair | undefined): IngressEnd {
    if (!ownKeys || route.dialerKey !== ownKeys.publicKey.toString('base64')) return { stream: socket, wrap: () => socket };
    return { stream: socket, wrap: (hostKey) => (hostKey === undefined ? undefined : E2eHostStream.dialer(socket, ownKeys, hostKey)) };
  }

  /** The egress's connection to the route's terminator: an SDK's (a Dial over its edge channel) or a dialed socket. */
  private async dialTerminator(route: CircuitRoute): Promise<HostedEnd> {
    if (route.terminator.binding === sdkBinding) {
      if (!this.deps.sdkHosts) throw new Error('this router hosts no SDK terminators');
      return this.deps.sdkHosts.dial(route);
    }
    return this.hostEnd(route, await this.dialer.dial(route.terminator.address));
  }

  /** Why this router cannot be the route's egress, or undefined when it can. */
  private hostingProblem(route: CircuitRoute): string | undefined {
    const { terminator } = route;
    if (terminator.routerId !== this.deps.routerId) return 'the terminator is not on this router';
    // An SDK's Bind on one of this router's edge listeners: hosted while the SDK is connected and bound.
    if (terminator.binding === sdkBinding) return this.deps.sdkHosts ? this.deps.sdkHosts.problem(route) : 'this router hosts no SDK terminators';
    // An administrator's terminator: dialed where it says, if this router dials that binding at all.
    if (terminator.binding === transportBinding) {
      if (!this.deps.transportDialer) return `terminator ${terminator.id} has binding ${transportBinding} and this router has no ${transportBinding} dialer (router.yml dialers)`;
      return adminTerminatorProblem(terminator.binding, terminator.address)?.reason;
    }
    if (this.deps.hosted().get(route.serviceId) !== terminator.address) return `this router does not host ${route.serviceName} at ${terminator.address}`;
    return undefined;
  }

  // ---- the table ----------------------------------------------------------------------------------------------

  private install(route: CircuitRoute, sides: [Side, Side]): Circuit {
    const now = performance.now();
    const circuit: Circuit = { id: route.circuitId, route, sides, state: 'setup', since: 0, createdAt: now, lastActivity: now, confirmSentAt: undefined, upAt: 0, pending: undefined };
    this.circuits.set(circuit.id, circuit);
    return circuit;
  }

  private attach(circuit: Circuit, index: 0 | 1, socket: EndStream): void {
    const side = circuit.sides[index];
    if (side.kind !== 'end') throw new Error('not an end');
    const end = new CircuitEnd(
      socket,
      (output) => {
        if (output.kind === 'data') {
          circuit.lastActivity = performance.now();
          this.counts.bytesIn += output.data.length;
        }
        if (output.kind === 'close' && output.overrun) {
          this.counts.windowOverruns++;
          const far = circuit.sides[index === 0 ? 1 : 0];
          this.deps.logger.warn('circuit closed: the sender exceeded the flow-control window', {
            circuitId: circuit.id,
            heldBytes: output.overrun.heldBytes,
            windowBytes: this.timing.windowBytes,
            ...(far.kind === 'link' ? { linkId: far.link.id, peerRouterId: far.link.destRouterId } : {}),
          });
        }
        this.forward(circuit, index, output);
      },
      this.timing.windowBytes,
    );
    side.end = end;
    end.start();
  }

  /**
   * The circuit ends: gone from the table, and the sides other than `from` are told (a link by `c.close`, an end by
   * closing its connection). `from` undefined: every side.
   */
  private teardown(circuit: Circuit, from: 0 | 1 | undefined, reason: string, graceful: boolean, reroute = false, avoid?: string): void {
    if (this.circuits.get(circuit.id) !== circuit) return;
    this.circuits.delete(circuit.id);
    if (circuit.pending) {
      circuit.pending({ ok: false, reason });
      // A first setup has no end attached yet (dial() closes its connection); a re-route's ends are closed below.
      if (circuit.state !== 'rerouting') return;
    }
    for (const index of [0, 1] as const) {
      if (index === from) continue;
      const side = circuit.sides[index];
      if (side.kind === 'link') {
        if (circuit.state === 'setup' && index === 0) side.link.send({ type: 'c.fail', circuitId: circuit.id, reason, ...(avoid ? { avoid } : {}) } satisfies FailFrame);
        else side.link.send({ type: 'c.close', circuitId: circuit.id, graceful, reason, ...(reroute ? { reroute: true } : {}) });
      } else if (side.kind === 'end' && side.end) {
        side.end.close(graceful);
      }
    }
    if (circuit.state === 'setup') return;
    this.deps.logger.info('circuit closed', { circuitId: circuit.id, service: circuit.route.serviceName, graceful, reason });
    const ingress = circuit.sides[0];
    if (ingress.kind === 'end' && circuit.upAt > 0) {
      this.deps.report?.({
        ...this.describe(circuit),
        event: 'deleted',
        durationMs: Math.round((performance.now() - circuit.upAt) * 1000) / 1000,
        bytesIn: ingress.end?.bytesIn ?? 0,
        bytesOut: ingress.end?.bytesOut ?? 0,
        reason,
      });
    }
  }

  private sendToward(circuit: Circuit, index: 0 | 1, frame: CircuitFrame): void {
    const side = circuit.sides[index];
    if (side.kind === 'link') side.link.send({ ...frame });
  }

  private linkClosed(link: CircuitLink): void {
    this.transit.linkClosed(link);
    for (const circuit of [...this.circuits.values()]) {
      const from = sideOf(circuit, link);
      if (from === undefined) continue;
      const reason = `link ${link.id} to router ${link.destRouterId} closed`;
      if (circuit.pending) {
        if (circuit.state === 'rerouting') {
          circuit.pending({ ok: false, reason, avoid: link.destRouterId });
          continue;
        }
        this.circuits.delete(circuit.id);
        circuit.pending({ ok: false, reason, avoid: link.destRouterId });
        continue;
      }
      if (this.pathLost(circuit, from, reason)) continue;
      this.teardown(circuit, from, reason, false, true, circuit.state === 'setup' && from === 1 ? this.setupAvoid(circuit.route, link.destRouterId) : undefined);
    }
  }

  /** The router a middle router's `c.fail` names when its next link is lost during a setup, so that the ingress asks
   * again around it rather than resetting its client: the router across the link, or this one when that router is
   * the terminator's (avoiding it would leave no terminator, while a path around this router may reach it). */
  private setupAvoid(route: CircuitRoute, across: string): string {
    return across === route.routers[route.routers.length - 1] ? this.deps.routerId : across;
  }

  private sweepSetups(): void {
    const now = performance.now();
    for (const circuit of [...this.circuits.values()]) {
      if ((circuit.state === 'orphaned' || circuit.state === 'rerouting') && now - circuit.since >= this.timing.setupTimeoutMs * (circuit.state === 'rerouting' ? this.timing.maxAttempts : 1)) {
        this.teardown(circuit, undefined, `no new path within ${Math.round(now - circuit.since)}ms`, false);
        continue;
      }
      if (circuit.state !== 'setup' || now - circuit.createdAt < this.timing.setupTimeoutMs) continue;
      const reason = `no answer to the setup within ${this.timing.setupTimeoutMs}ms`;
      const next = circuit.sides[1];
      if (circuit.pending) {
        this.circuits.delete(circuit.id);
        circuit.pending({ ok: false, reason, ...(next.kind === 'link' ? { avoid: next.link.destRouterId } : {}) });
        if (next.kind === 'link') next.link.send({ type: 'c.close', circuitId: circuit.id, graceful: false, reason });
        continue;
      }
      this.teardown(circuit, undefined, reason, false);
    }
  }

  private sweepIdle(): void {
    const now = performance.now();
    const { idleCircuitTimeout, xgressCloseCheckInterval } = this.deps.config;
    for (const circuit of [...this.circuits.values()]) {
      if (circuit.state !== 'up' || now - circuit.lastActivity < idleCircuitTimeout) continue;
      const links = circuit.sides.filter((side): side is Extract<Side, { kind: 'link' }> => side.kind === 'link');
      if (links.length === 0) continue;
      if (circuit.confirmSentAt === undefined) {
        circuit.confirmSentAt = now;
        for (const side of links) side.link.send({ type: 'c.confirm', circuitId: circuit.id }, 'ack');
      } else if (now - circuit.confirmSentAt >= xgressCloseCheckInterval) {
        this.deps.logger.info('idle circuit un-routed: not confirmed', { circuitId: circuit.id, idleMs: Math.round(now - circuit.lastActivity) });
        this.teardown(circuit, undefined, 'idle circuit not confirmed', false);
      }
    }
  }
}

function sideOf(circuit: Circuit, link: CircuitLink): 0 | 1 | undefined {
  const [upstream, downstream] = circuit.sides;
  if (upstream.kind === 'link' && upstream.link.id === link.id) return 0;
  if (downstream.kind === 'link' && downstream.link.id === link.id) return 1;
  return undefined;
}
