// This controller's router control channels: admits routers (see router-admission.ts), welcomes them with the
// cluster's members and the other connected routers, keeps them up to date (membership, routers coming and going,
// the edge model, debounced), answers their heartbeats and requests, and passes their metrics on. Closes a channel
// whose router is disabled, deleted or re-enrolled while connected. Every router it tells routers about carries the
// fingerprints of that router's enrolled certificates from the model (never what another controller sent), so
// routers can check a link peer's certificate. It also keeps the terminators its routers register (see
// terminator-registry.ts for why they live here and not in the raft log): each one checked against the model when
// it arrives and again whenever the model changes.
import type { ControllerEndpoint, ControllerToRouter, EdgeModel, LinkListenerInfo, RouterInfo } from '../../common/control-channel/control-messages.ts';
import type { Logger } from '../../common/log/logger.ts';
import type { Clock } from '../../common/time/clock.ts';
import type { RouterConnection } from '../edge/router-presence.ts';
import type { AppliedChanges } from '../model/model-state-machine.ts';
import type { EdgeRouter } from '../model/router-entities.ts';
import { routerTables } from '../model/router-entities.ts';
import { tables } from '../model/entities.ts';
import { encodeFrame } from '../../common/framing/frame-codec.ts';
import { sameMembers } from './cluster-members.ts';
import { EdgeModelChanges, type RowReader } from './edge-model-delta.ts';
import { edgeModelTables } from './edge-model-snapshot.ts';
import { admitRouter, readHello } from './router-admission.ts';
import { RouterChannel, type ControlSocket, type RouterChannelOwner, type RouterChannelTiming } from './router-channel.ts';
import { readTerminatorCreate, readTerminatorRemove } from './terminator-messages.ts';
import { linkReachOf, mayLink, type LinkReach } from './link-reach.ts';
import { RouterAnnouncements } from './router-announcements.ts';
import type { ReportedLink, RouterLinkReport } from '../circuits/circuit-paths.ts';
import { readCircuitReport, type CircuitReport } from '../events/circuit-events.ts';
import type { TerminatorRegistry } from './terminator-registry.ts';
import type { EdgeBindAnswer } from '../circuits/edge-bind-check.ts';
import type { TerminatorRecord } from '../edge/terminator-directory.ts';

/** A router connected to some controller, as controllers tell each other. */
export interface RouterSummary extends RouterConnection {
  readonly name: string;
  readonly linkListeners: readonly LinkListenerInfo[];
  /** The groups its link dialers dial, when its hello said (`routersChanged`); absent: any listener. */
  readonly linkDialerGroups?: readonly string[];
}

/** A router as controllers tell each other of it: what routers are told, and whom it dials (link-reach.ts). */
export type AnnouncedRouter = RouterInfo & { readonly linkDialerGroups?: readonly string[] };

/** What one controller tells the others when one of its routers comes or goes. */
export type RouterEvent =
  | { readonly event: 'connected'; readonly router: AnnouncedRouter }
  | { readonly event: 'disconnected'; readonly routerId: string }
  /** The router's terminators changed: the other controllers drop what they cached. */
  | { readonly event: 'terminators'; readonly routerId: string }
  /** The router's set of links changed (not merely their latencies): paths may go elsewhere. */
  | { readonly event: 'links'; readonly routerId: string }
  /** Which API sessions hold SDK edge channels on the router changed. */
  | { readonly event: 'edgeSessions'; readonly routerId: string };

export interface RouterMetricsSink {
  record(routerId: string, gauges: Readonly<Record<string, unknown>>): void;
  connected(routerId: string): void;
  disconnected(routerId: string): void;
  /** The control channel's round trip as this controller measured it (its heartbeat, answered). */
  roundTrip(routerId: string, ms: number): void;
}

export interface RouterEdgeSessionsSink {
  /** A router was welcomed (its full report follows). */
  connected(routerId: string): void;
  report(routerId: string, frame: unknown): void;
  /** Its channel closed; `revoked`: it may no longer connect (its sessions go at once, not after the grace). */
  disconnected(routerId: string, revoked: boolean): void;
}

export interface RouterHubTiming extends RouterChannelTiming {
  /** Model changes within this window make one `ctrl.edgeModel` (1 s). */
  readonly edgeModelDebounceMs: number;
  /** Routers' arrivals and departures within this window make one `ctrl.routersChanged` (default 250 ms). */
  readonly routersChangedIntervalMs?: number;
  /**
   * Whole edge models written and not yet taken by their routers' sockets, at most (default 8); the others wait,
   * in order. A model counts until its socket has drained or `wholeModelDrainMs` (default 10 s) has passed.
   */
  readonly wholeModelsInFlight?: number;
  readonly wholeModelDrainMs?: number;
  /**
   * A router whose channel holds more than `slowReaderBytes` unwritten (default 32 MiB) for `slowReaderMs` (default
   * 30 s) is closed: a router that does not read must not cost the controller its memory.
   */
  readonly slowReaderBytes?: number;
  readonly slowReaderMs?: number;
}

const defaultRoutersChangedIntervalMs = 250;
const defaultWholeModelsInFlight = 8;
const defaultWholeModelDrainMs = 10_000;
const defaultSlowReaderBytes = 32 * 1024 * 1024;
const defaultSlowReaderMs = 30_000;

export interface RouterHubDeps {
  readonly controllerId: string;
  readonly findRouter: (id: string) => EdgeRouter | undefined;
  readonly edgeModel: () => { index: number; model: EdgeModel };
  /**
   * The model's rows, for `ctrl.edgeModelDelta`s to routers that apply them (edge-model-delta.ts); without it every
   * router gets the whole model on every change.
   */
  readonly modelRows?: RowReader;
  /** serviceId → terminator address: what the router may host now, by this controller's model. */
  readonly hostedServices: (routerId: string) => ReadonlyMap<string, string>;
  readonly terminators: TerminatorRegistry;
  /** The routers connected to the other controllers of the cluster, for the welcome. */
  readonly otherRouters: () => Promise<readonly AnnouncedRouter[]>;
  /** Tells the other controllers; must not throw. */
  readonly announce: (event: RouterEvent) => void;
  /** A router reported its links (latencies too, not only a new set): the cluster's link graph follows. */
  readonly linksReported?: (routerId: string) => void;
  readonly metrics: RouterMetricsSink;
  /** A circuit report from a router (`router.circuit`: created, deleted, failed), checked. */
  readonly circuitReport: (routerId: string, report: CircuitReport) => void;
  /** A router's `router.circuitsLive` (its live ingress circuits, after a welcome): re-checked for revocation here. */
  readonly liveCircuits?: (routerId: string, frame: unknown) => void;
  /** The API sessions holding SDK edge channels on this controller's routers (`router.edgeSessions`). */
  readonly edgeSessions?: RouterEdgeSessionsSink;
  /** A router's `circuit.create` request; the answer goes back as the response's value. */
  readonly createCircuit: (routerId: string, request: unknown) => Promise<unknown>;
  /** A router's `edge.hello` request (an SDK's hello on its edge listener); the answer goes back as the value. */
  readonly edgeHello: (routerId: string, request: unknown) => unknown;
  /** A router's `edge.updateToken` request (an SDK's UpdateToken): the new token's session and expiry, or a refusal. */
  readonly edgeTokenUpdate?: (routerId: string, request: unknown) => unknown;
  /** A router's `edge.bind` request (an SDK's Bind): the terminator to host, or a refusal. */
  readonly edgeBind: (routerId: string, request: unknown) => EdgeBindAnswer;
  /** Whether an SDK-hosted terminator is still allowed (its session live, Bind still granted): checked on model changes. */
  readonly sdkTerminatorAllowed: (terminator: TerminatorRecord) => boolean;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly timing: RouterHubTiming;
}

export class RouterHub implements RouterChannelOwner {
  private readonly open = new Set<RouterChannel>();
  /** Welcomed channels by router id: the routers connected here. */
  private readonly connected = new Map<string, RouterChannel>();
  /** Each connected router's last `router.links`. */
  private readonly linkReports = new Map<string, RouterLinkReport>();
  private members: ControllerEndpoint[] = [];
  private modelTimer: NodeJS.Timeout | undefined;
  private sdkRecheckTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private encodedModel: { source: { index: number }; bytes: Buffer } | undefined;
  /** The edge model rows changed since the last push, and the index that push read (where the next delta starts). */
  private readonly modelChanges = new EdgeModelChanges();
  private pushedIndex: number;
  /** The model index each channel was last sent (whole or delta): it may take a delta starting at or below it. */
  private readonly sentModelIndex = new WeakMap<RouterChannel, number>();
  /** Arrivals and departures not yet sent to the routers that take `ctrl.routersChanged`. */
  private readonly announcements = new RouterAnnouncements();
  private announceTimer: NodeJS.Timeout | undefined;
  /**
   * What each router announced here dials and listens on, for whom its departure concerns: kept after a local router
   * leaves, since the cluster's presence then reports its departure as well (a router per id, at most).
   */
  private readonly reachById = new Map<string, LinkReach>();
  /** Channels waiting for a whole model, in order, and how many models are written and not yet drained. */
  private readonly modelQueue = new Set<RouterChannel>();
  private modelsInFlight = 0;
  /** Since when each channel has held more than the slow-reader bound unwritten. */
  private readonly backedUpSince = new WeakMap<RouterChannel, number>();
  private readonly slowReaderTimer: NodeJS.Timeout;

  constructor(private readonly deps: RouterHubDeps) {
    this.pushedIndex = deps.modelRows?.appliedIndex() ?? 0;
    const slowReaderMs = deps.timing.slowReaderMs ?? defaultSlowReaderMs;
    this.slowReaderTimer = setInterval(() => this.closeSlowReaders(), Math.max(10, Math.min(5000, Math.floor(slowReaderMs / 4))));
    this.slowReaderTimer.unref();
  }

  /** A TLS connection on the control address whose (CA-verified) certificate is not a controller's. */
  accept(socket: ControlSocket): void {
    if (this.stopped) {
      socket.destroy();
      return;
    }
    this.open.add(new RouterChannel(socket, this, this.deps.timing));
  }

  setMembers(members: readonly ControllerEndpoint[]): void {
    if (sameMembers(this.members, members)) return;
    this.members = [...members];
    this.broadcast({ type: 'ctrl.members', members: this.members });
  }

  /** Applied model changes: a new edge model (debounced), and routers that may no longer keep their channel. */
  modelChanged(applied: AppliedChanges): void {
    let modelChanged = false;
    let sdkHostsChanged = false;
    for (const change of applied.changes) {
      if (edgeModelTables.has(change.entityType) && !enrollmentOnly(applied.command)) {
        modelChanged = true;
        this.modelChanges.note(change);
      }
      if (change.entityType === routerTables.edgeRouters) this.recheck(change.id);
      if (change.entityType === tables.apiSessions && change.eventType === 'deleted') sdkHostsChanged = true;
      if (change.entityType === tables.identities) sdkHostsChanged = true;
    }
    // The terminators are checked again with the debounced model push: a burst of changes costs one check.
    if (modelChanged) this.scheduleEdgeModel();
    // An API session ended (logout, expiry, revocation) or an identity changed (its attributes may no longer match a
    // Bind policy; it may be gone): the SDK terminators it bound go, without a model push.
    else if (sdkHostsChanged) this.scheduleSdkRecheck();
  }

  /** A snapshot replaced the model (no per-row changes were heard): every router is sent the whole new model. */
  modelReplaced(): void {
    this.modelChanges.replaced();
    this.scheduleEdgeModel();
  }

  /** Another controller's router came or went: this controller's routers hear of it. */
  remoteEvent(event: RouterEvent): void {
    if (event.event === 'connected') {
      if (this.connected.has(event.router.id)) return;
      const reach = linkReachOf(event.router.linkListeners, event.router.linkDialerGroups);
      this.reachById.set(event.router.id, reach);
      this.announceConnected(event.router, reach);
    } else if (event.event === 'disconnected' && !this.connected.has(event.routerId)) {
      const reach = this.reachById.get(event.routerId);
      this.reachById.delete(event.routerId);
      this.announceDisconnected(event.routerId, reach);
    }
  }

  isConnected(routerId: string): boolean {
    return this.connected.has(routerId);
  }

  /** The router is connected here and said `routeBatches` in its hello (it verifies batch-signed routes). */
  takesRouteBatches(routerId: string): boolean {
    return this.connected.get(routerId)?.hello?.routeBatches === true;
  }

  /** Sends to the router when it is connected here; false when it is not. */
  sendTo(routerId: string, frame: ControllerToRouter): boolean {
    const channel = this.connected.get(routerId);
    if (!channel || channel.ending || channel.closed) return false;
    channel.send(frame);
    return true;
  }

  /** The links of the routers connected here, as they last reported them. */
  links(): RouterLinkReport[] {
    return [...this.linkReports.values()].filter((report) => this.connected.has(report.routerId));
  }

  /** A router's last links while it is connected here ([] before its first report), else undefined. */
  linksIfConnected(routerId: string): RouterLinkReport['links'] | undefined {
    if (!this.connected.has(routerId)) return undefined;
    return this.linkReports.get(routerId)?.links ?? [];
  }

  /** One router connected here, as the others are told of it; undefined when it is not. */
  summaryOf(routerId: string): RouterSummary | undefined {
    const channel = this.connected.get(routerId);
    return channel ? this.summary(channel) : undefined;
  }

  /** The routers connected here now. */
  summaries(): RouterSummary[] {
    return [...this.connected.values()].map((channel) => this.summary(channel));
  }

  private summary(channel: RouterChannel): RouterSummary {
    const hello = channel.hello!;
    return {
      routerId: hello.routerId,
      controllerId: this.deps.controllerId,
      version: hello.version,
      hostname: hello.hostname ?? '',
      supportedProtocols: hello.supportedProtocols ?? {},
      connectedAt: new Date(channel.connectedAt).toISOString(),
      name: this.deps.findRouter(hello.routerId)?.name ?? hello.routerId,
      linkListeners: hello.linkListeners,
      ...(hello.linkDialerGroups ? { linkDialerGroups: hello.linkDialerGroups } : {}),
    };
  }

  close(): void {
    this.stopped = true;
    clearTimeout(this.modelTimer);
    clearTimeout(this.sdkRecheckTimer);
    clearTimeout(this.announceTimer);
    clearInterval(this.slowReaderTimer);
    for (const channel of [...this.open]) channel.close('controller shutting down');
  }

  // ---- RouterChannelOwner ---------------------------------------------------------------------------------------

  roundTrip(channel: RouterChannel, ms: number): void {
    if (channel.hello) this.deps.metrics.roundTrip(channel.hello.routerId, ms);
  }

  frame(channel: RouterChannel, frame: unknown): void {
    if (!channel.hello) {
      this.admit(channel, frame);
      return;
    }
    const value = frame as { type?: unknown; [key: string]: unknown };
    const routerId = channel.hello.routerId;
    switch (value?.type) {
      case 'res':
        return;
      case 'router.links':
        this.linksFrame(routerId, value);
        return;
      case 'router.circuit': {
        const report = readCircuitReport(value);
        const refusal = report ? circuitReportRefusal(routerId, report) : 'malformed';
        if (refusal !== undefined) return this.deps.logger.warn('router circuit report refused', { routerId, reason: refusal });
        this.deps.circuitReport(routerId, report!);
        return;
      }
      case 'router.circuitsLive':
        this.deps.liveCircuits?.(routerId, value);
        return;
      case 'router.edgeSessions':
        this.deps.edgeSessions?.report(routerId, value);
        return;
      case 'req':
        this.answer(channel, value);
        return;
      case 'router.terminator.create':
      case 'router.terminator.remove':
        this.terminatorFrame(routerId, value);
        return;
      case 'router.metrics': {
        if (value.routerId !== undefined && value.routerId !== routerId) {
          this.deps.logger.warn('router metrics ignored: they name another router', { routerId, claimed: value.routerId });
          return;
        }
        const gauges = value.gauges;
        if (typeof gauges !== 'object' || gauges === null || Array.isArray(gauges)) return;
        this.deps.metrics.record(routerId, gauges as Record<string, unknown>);
        return;
      }
      default:
        this.deps.logger.debug('router frame ignored', { routerId, type: typeof value?.type === 'string' ? value.type : typeof value });
    }
  }

  closed(channel: RouterChannel, reason: string): void {
    this.open.delete(channel);
    const routerId = channel.hello?.routerId;
    if (!channel.welcomed || routerId === undefined) return;
    if (this.connected.get(routerId) !== channel) {
      this.deps.logger.info('router channel replaced', { routerId, reason, remote: channel.remote });
      return;
    }
    this.connected.delete(routerId);
    this.linkReports.delete(routerId);
    this.deps.logger.info('router disconnected', { routerId, reason, remote: channel.remote });
    // A router that may no longer connect (deleted, disabled, re-enrolled) loses its terminators at once; any other
    // keeps them for the grace period, in case it is back at once.
    const row = this.deps.findRouter(routerId);
    if (!row || row.disabled || row.fingerprint !== channel.certificate.fingerprint) this.deps.terminators.drop(routerId);
    else this.deps.terminators.disconnected(routerId, this.deps.clock.now());
    this.deps.edgeSessions?.disconnected(routerId, !row || row.disabled || row.fingerprint !== channel.certificate.fingerprint);
    this.deps.metrics.disconnected(routerId);
    if (this.stopped) return;
    this.announceDisconnected(routerId, reachOf(channel));
    this.deps.announce({ event: 'disconnected', routerId });
  }

  // ---- internals -------------------------------------------------------------------------------------------------

  private admit(channel: RouterChannel, frame: unknown): void {
    const read = readHello(frame);
    if (!read.ok) return this.refuse(channel, read.reason);
    const row = this.deps.findRouter(channel.certificate.commonName ?? '');
    const admission = admitRouter(channel.certificate, read.hello, row);
    // At a hello, only a router known to be disabled is told it is revoked: a missing row may be one this controller
    // has not applied yet (a lagging member), and telling a router it is revoked closes every circuit it holds.
    if (!admission.ok) return this.refuse(channel, admission.reason, row?.disabled === true);
    channel.hello = read.hello;
    channel.connectedAt = this.deps.clock.now();
    void this.welcome(channel);
  }

  private async welcome(channel: RouterChannel): Promise<void> {
    const hello = channel.hello!;
    let others: readonly AnnouncedRouter[] = [];
    try {
      others = await this.deps.otherRouters();
    } catch (error) {
      this.deps.logger.warn('could not learn the routers of the other controllers', { error: (error as Error).message });
    }
    if (channel.closed || channel.ending || this.stopped) return;
    // The router may have been disabled or re-enrolled while the other controllers were asked.
    const row = this.deps.findRouter(hello.routerId);
    const again = admitRouter(channel.certificate, hello, row);
    if (!again.ok) return this.refuse(channel, again.reason, row?.disabled === true);
    const previous = this.connected.get(hello.routerId);
    this.connected.set(hello.routerId, channel);
    this.reachById.set(hello.routerId, reachOf(channel));
    channel.welcome();
    this.deps.terminators.connected(hello.routerId);
    this.deps.edgeSessions?.connected(hello.routerId);
    if (previous && previous !== channel) previous.close('replaced by a newer channel from the same router');
    const info = this.infoOf(channel);
    const reach = reachOf(channel);
    // A router that takes `ctrl.routersChanged` is told only of the routers it may link with.
    const concerns = (other: LinkReach) => !hello.routersChanged || mayLink(reach, other);
    const local = [...this.connected.values()].filter((other) => other !== channel && concerns(reachOf(other))).map((other) => this.infoOf(other));
    // A set, not a scan per remote router: thousands of routers arriving made each welcome quadratic.
    const localIds = new Set([...this.connected.keys()]);
    const remote = others.filter((other) => !localIds.has(other.id) && concerns(linkReachOf(other.linkListeners, other.linkDialerGroups)));
    const routers = [...local, ...remote].map((other) => this.withFingerprints(other));
    channel.send({ type: 'ctrl.welcome', controllerId: this.deps.controllerId, members: this.members, routers });
    this.queueWholeModel(channel);
    this.deps.metrics.connected(hello.routerId);
    this.deps.logger.info('router connected', { routerId: hello.routerId, name: info.name, version: hello.version, remote: channel.remote, linkListeners: hello.linkListeners.length });
    this.announceConnected(info, reach, channel);
    this.deps.announce({ event: 'connected', router: info });
  }

  private refuse(channel: RouterChannel, reason: string, revoked = false): void {
    // The reason can quote the router's first frame: a field, never the msg (alerts match msg).
    this.deps.logger.warn('router connection refused', { certificate: channel.certificate.commonName ?? null, remote: channel.remote, reason });
    channel.refuse(reason, revoked);
  }

  private answer(channel: RouterChannel, request: { [key: string]: unknown }): void {
    const rid = typeof request.rid === 'number' ? request.rid : -1;
    const op = (request.body as { op?: unknown } | undefined)?.op;
    if (op === 'ping') channel.send({ type: 'res', rid, ok: true });
    else if (op === 'edgeModel') channel.send({ type: 'res', rid, ok: true, value: this.deps.edgeModel() });
    else if (op === 'circuit.create') {
      const routerId = channel.hello!.routerId;
      this.deps.createCircuit(routerId, request.body).then(
        (value) => channel.send({ type: 'res', rid, ok: true, value }),
        (error: unknown) => {
          this.deps.logger.error('circuit request failed', { routerId, error: (error as Error).message });
          channel.send({ type: 'res', rid, ok: false, error: 'the controller could not decide the circuit' });
        },
      );
    } else if (op === 'edge.hello') channel.send({ type: 'res', rid, ok: true, value: this.deps.edgeHello(channel.hello!.routerId, request.body) });
    else if (op === 'edge.updateToken') {
      const value = this.deps.edgeTokenUpdate?.(channel.hello!.routerId, request.body) ?? { refused: { code: 'INVALID_API_SESSION', message: 'this controller does not update tokens' } };
      channel.send({ type: 'res', rid, ok: true, value });
    } else if (op === 'edge.bind') channel.send({ type: 'res', rid, ok: true, value: this.sdkBind(channel.hello!.routerId, request.body) });
    else if (op === 'edge.unbind') channel.send({ type: 'res', rid, ok: true, value: this.sdkUnbind(channel.hello!.routerId, request.body) });
    else channel.send({ type: 'res', rid, ok: false, error: `unknown request ${JSON.stringify(op ?? null)}` });
  }

  /** A router's links: kept for paths; a change of the set (not of latencies) is announced. */
  private linksFrame(routerId: string, frame: { [key: string]: unknown }): void {
    const links = readLinkReport(frame.links);
    if (links === undefined) return this.deps.logger.warn('router links message refused', { routerId });
    const before = this.linkReports.get(routerId);
    this.linkReports.set(routerId, { routerId, links });
    const ids = (report: RouterLinkReport | undefined) => (report?.links.map((link) => link.id).sort().join(',') ?? '');
    if (ids(before) !== ids({ routerId, links })) this.deps.announce({ event: 'links', routerId });
    else this.deps.linksReported?.(routerId);
  }

  /** A router row changed: a channel it no longer qualifies for is told why and closed. */
  private recheck(routerId: string): void {
    for (const channel of this.open) {
      if (channel.hello?.routerId !== routerId || channel.ending) continue;
      const row = this.deps.findRouter(routerId);
      const admission = admitRouter(channel.certificate, channel.hello, row);
      if (admission.ok) continue;
      // A disabled or deleted router is told so: it closes every circuit it holds (the others close their links to it).
      this.deps.logger.info('router channel closed: it may no longer connect', { routerId, reason: admission.reason, revoked: isRevoked(row) });
      channel.refuse(admission.reason, isRevoked(row));
    }
  }

  /** A router's terminator create or remove: each create must be a service the router may host, at that address. */
  private terminatorFrame(routerId: string, frame: { [key: string]: unknown }): void {
    const registry = this.deps.terminators;
    let changed: boolean;
    if (frame.type === 'router.terminator.remove') {
      const read = readTerminatorRemove(frame);
      if (!read.ok) return this.deps.logger.warn('router terminator message refused', { routerId, reason: read.reason });
      changed = registry.remove(routerId, read.serviceIds);
    } else {
      const read = readTerminatorCreate(frame);
      if (!read.ok) return this.deps.logger.warn('router terminator message refused', { routerId, reason: read.reason });
      const hosted = this.deps.hostedServices(routerId);
      const allowed = read.terminators.filter((terminator) => hosted.get(terminator.serviceId) === terminator.address);
      const refused = read.terminators.filter((terminator) => !allowed.includes(terminator));
      if (refused.length > 0) {
        this.deps.logger.warn('router terminators refused: the router may not Bind these services, or they have no such host.v1 address', {
          routerId,
          services: refused.slice(0, 20).map((terminator) => terminator.serviceId),
          count: refused.length,
        });
      }
      changed = registry.add(routerId, allowed, this.deps.clock.now());
      // Routers send every terminator again with each model: only what is new (or re-addressed) is worth a line.
      if (changed) this.deps.logger.info('router terminators registered', { routerId, count: allowed.length });
    }
    if (changed) this.deps.announce({ event: 'terminators', routerId });
  }

  /** An SDK's Bind: judged, then listed as the router's terminator (announced to the cluster). */
  private sdkBind(routerId: string, body: unknown): EdgeBindAnswer {
    const answer = this.deps.edgeBind(routerId, body);
    if ('refused' in answer) {
      this.deps.logger.warn('sdk bind refused', { routerId, code: answer.refused.code, reason: answer.refused.message });
      return answer;
    }
    if (!this.deps.terminators.addSdk(routerId, answer.terminator)) return { refused: { code: 'INVALID_REQUEST', message: 'the router is not connected to this controller' } };
    this.deps.logger.info('sdk terminator registered', { routerId, terminatorId: answer.terminator.id, serviceId: answer.terminator.serviceId, identityId: answer.terminator.hostIdentityId });
    this.deps.announce({ event: 'terminators', routerId });
    return answer;
  }

  /** An SDK unbound or left the router: its terminators go. */
  private sdkUnbind(routerId: string, body: unknown): { removed: number } {
    const ids = (body as { terminatorIds?: unknown } | null)?.terminatorIds;
    const list = Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string').slice(0, 1000) : [];
    const removed = list.filter((id) => this.deps.terminators.sdkTerminator(routerId, id) !== undefined);
    if (this.deps.terminators.removeSdk(routerId, list)) {
      this.deps.logger.info('sdk terminators removed', { routerId, terminatorIds: removed.slice(0, 20), count: removed.length });
      this.deps.announce({ event: 'terminators', routerId });
    }
    return { removed: removed.length };
  }

  /** The model changed: terminators the model no longer grants go (the router, sent the new model, removes them too). */
  private recheckTerminators(): void {
    for (const routerId of this.deps.terminators.routerIds()) {
      if (!this.deps.findRouter(routerId)) {
        if (this.deps.terminators.drop(routerId)) this.deps.announce({ event: 'terminators', routerId });
        continue;
      }
      this.recheckSdkTerminators(routerId);
      const removed = this.deps.terminators.retain(routerId, this.deps.hostedServices(routerId));
      if (removed.length === 0) continue;
      this.deps.logger.info('router terminators removed: the model no longer lets the router host them', { routerId, services: removed.slice(0, 20), count: removed.length });
      this.deps.announce({ event: 'terminators', routerId });
    }
  }

  private scheduleSdkRecheck(): void {
    if (this.sdkRecheckTimer || this.stopped) return;
    this.sdkRecheckTimer = setTimeout(() => {
      this.sdkRecheckTimer = undefined;
      for (const routerId of this.deps.terminators.routerIds()) this.recheckSdkTerminators(routerId);
    }, this.deps.timing.edgeModelDebounceMs);
    this.sdkRecheckTimer.unref();
  }

  /** SDK terminators whose session ended or whose identity may no longer Bind go, and their router is told. */
  private recheckSdkTerminators(routerId: string): void {
    const removed = this.deps.terminators.retainSdk(routerId, this.deps.sdkTerminatorAllowed);
    if (removed.length === 0) return;
    this.deps.logger.info('sdk terminators removed: the model no longer lets their identities host them', { routerId, terminatorIds: removed.slice(0, 20), count: removed.length });
    this.sendTo(routerId, { type: 'ctrl.sdkTerminatorsRemoved', terminatorIds: removed });
    this.deps.announce({ event: 'terminators', routerId });
  }

  private scheduleEdgeModel(): void {
    if (this.modelTimer || this.stopped) return;
    this.modelTimer = setTimeout(() => {
      this.modelTimer = undefined;
      this.recheckTerminators();
      this.pushModel();
    }, this.deps.timing.edgeModelDebounceMs);
    this.modelTimer.unref();
  }

  private infoOf(channel: RouterChannel): AnnouncedRouter {
    const hello = channel.hello!;
    return {
      id: hello.routerId,
      name: this.deps.findRouter(hello.routerId)?.name ?? hello.routerId,
      linkListeners: hello.linkListeners,
      ...(hello.linkDialerGroups ? { linkDialerGroups: hello.linkDialerGroups } : {}),
    };
  }

  /** A router arrived (here, or on another controller): routers on the old protocol hear of it at once, one frame
   * each; those that take `ctrl.routersChanged` with the next batch. */
  private announceConnected(info: AnnouncedRouter, reach: LinkReach, except?: RouterChannel): void {
    this.broadcastLegacy(encodeFrame({ type: 'ctrl.routerConnected', router: this.withFingerprints(info) }), except);
    this.announcements.connected(info, reach);
    this.scheduleAnnouncements();
  }

  private announceDisconnected(routerId: string, reach: LinkReach | undefined): void {
    this.broadcastLegacy(encodeFrame({ type: 'ctrl.routerDisconnected', routerId }));
    this.announcements.disconnected(routerId, reach);
    this.scheduleAnnouncements();
  }

  private broadcastLegacy(bytes: Buffer, except?: RouterChannel): void {
    for (const channel of this.connected.values()) if (channel !== except && !channel.ending && !channel.hello?.routersChanged) channel.sendEncoded(bytes);
  }

  private scheduleAnnouncements(): void {
    if (this.announceTimer || this.stopped) return;
    this.announceTimer = setTimeout(() => {
      this.announceTimer = undefined;
      this.flushAnnouncements();
    }, this.deps.timing.routersChangedIntervalMs ?? defaultRoutersChangedIntervalMs);
    this.announceTimer.unref();
  }

  /** One `ctrl.routersChanged` to each router that takes it, naming the routers it may link with; encoded once per
   * kind of receiver (those that dial and listen on the same groups hear the same). */
  private flushAnnouncements(): void {
    if (this.announcements.size === 0) return;
    const messageFor = this.announcements.take();
    const encoded = new Map<object, Buffer>();
    for (const channel of this.connected.values()) {
      if (channel.ending || !channel.hello?.routersChanged) continue;
      const message = messageFor(reachOf(channel));
      if (message === undefined) continue;
      let bytes = encoded.get(message);
      if (bytes === undefined) {
        bytes = encodeFrame({ ...message, connected: message.connected.map((info) => this.withFingerprints(info)) });
        encoded.set(message, bytes);
      }
      channel.sendEncoded(bytes);
    }
  }

  /** The router's enrolled certificates' fingerprints from this controller's model, in place of any it came with
   * (and nothing of what controllers alone need). */
  private withFingerprints(info: AnnouncedRouter): RouterInfo {
    const { fingerprint: _sentFingerprint, serverFingerprint: _sentServerFingerprint, linkDialerGroups: _dialerGroups, ...rest } = info;
    const row = this.deps.findRouter(info.id);
    return {
      ...rest,
      ...(row?.fingerprint ? { fingerprint: row.fingerprint } : {}),
      ...(row?.serverFingerprint ? { serverFingerprint: row.serverFingerprint } : {}),
    };
  }

  /** One frame to every welcomed router: encoded once, not once per router. */
  private broadcast(frame: ControllerToRouter, except?: RouterChannel): void {
    this.broadcastEncoded(encodeFrame(frame), except);
  }

  private broadcastEncoded(bytes: Buffer, except?: RouterChannel): void {
    for (const channel of this.connected.values()) if (channel !== except && !channel.ending) channel.sendEncoded(bytes);
  }

  /**
   * The model changed: a router that applies deltas and holds the model this delta starts from gets the changed rows;
   * any other, the whole model. Each frame is encoded once for every router it goes to.
   */
  private pushModel(): void {
    const rows = this.deps.modelRows;
    const index = rows ? rows.appliedIndex() : this.deps.edgeModel().index;
    const fromIndex = this.pushedIndex;
    const delta = rows ? this.modelChanges.take(rows, fromIndex, index) : undefined;
    this.pushedIndex = index;
    const deltaBytes = delta ? encodeFrame(delta) : undefined;
    for (const channel of this.connected.values()) {
      if (channel.ending) continue;
      if (deltaBytes && channel.hello?.edgeModelDeltas && (this.sentModelIndex.get(channel) ?? -1) >= fromIndex) {
        channel.sendEncoded(deltaBytes);
        this.sentModelIndex.set(channel, index);
      } else this.queueWholeModel(channel);
    }
  }

  /**
   * The channel is sent the whole model (the one current when its turn comes), once fewer than the budget of whole
   * models are still unwritten: thousands of routers welcomed at once must not each hold a copy of it in the
   * controller's memory. A channel already waiting keeps its place.
   */
  private queueWholeModel(channel: RouterChannel): void {
    this.modelQueue.add(channel);
    this.sendQueuedModels();
  }

  private sendQueuedModels(): void {
    const budget = this.deps.timing.wholeModelsInFlight ?? defaultWholeModelsInFlight;
    for (const channel of this.modelQueue) {
      if (this.modelsInFlight >= budget) return;
      this.modelQueue.delete(channel);
      if (channel.closed || channel.ending) continue;
      this.sendWholeModel(channel);
      this.modelsInFlight++;
      void channel.drained(this.deps.timing.wholeModelDrainMs ?? defaultWholeModelDrainMs).then(() => {
        this.modelsInFlight--;
        if (!this.stopped) this.sendQueuedModels();
      });
    }
  }

  private sendWholeModel(channel: RouterChannel): void {
    const frame = this.edgeModelFrame();
    channel.sendEncoded(frame.bytes);
    this.sentModelIndex.set(channel, frame.index);
  }

  /** Closes a router whose channel has held more than the bound unwritten for too long (it does not read). */
  private closeSlowReaders(): void {
    const bound = this.deps.timing.slowReaderBytes ?? defaultSlowReaderBytes;
    const limitMs = this.deps.timing.slowReaderMs ?? defaultSlowReaderMs;
    const now = this.deps.clock.now();
    for (const channel of this.open) {
      if (channel.closed || channel.ending) continue;
      const pending = channel.pendingBytes;
      if (pending <= bound) {
        this.backedUpSince.delete(channel);
        continue;
      }
      const since = this.backedUpSince.get(channel);
      if (since === undefined) {
        this.backedUpSince.set(channel, now);
        continue;
      }
      if (now - since < limitMs) continue;
      this.deps.logger.warn('router channel closed: the router does not read what the controller sends', {
        routerId: channel.hello?.routerId ?? null,
        remote: channel.remote,
        pendingBytes: pending,
        limitBytes: bound,
        forMs: now - since,
      });
      channel.close(`more than ${bound} bytes unwritten for ${limitMs} ms`);
    }
  }

  /** The `ctrl.edgeModel` frame of the current model, encoded once for as long as `edgeModel()` answers the same one. */
  private edgeModelFrame(): { index: number; bytes: Buffer } {
    const current = this.deps.edgeModel();
    if (this.encodedModel?.source !== current) this.encodedModel = { source: current, bytes: encodeFrame({ type: 'ctrl.edgeModel', ...current }) };
    return { index: current.index, bytes: this.encodedModel.bytes };
  }
}

const reachByHello = new WeakMap<object, LinkReach>();

/** Whom the channel's router may link with, by its hello (worked out once per hello). */
function reachOf(channel: RouterChannel): LinkReach {
  const hello = channel.hello!;
  let reach = reachByHello.get(hello);
  if (reach === undefined) {
    reach = linkReachOf(hello.linkListeners, hello.linkDialerGroups);
    reachByHello.set(hello, reach);
  }
  return reach;
}

/** An enrollment or re-enrollment changes a router's certificates only, none of what the edge model carries of it
 * (name, roles, tunneler, disabled): without this, each router enrolled sent the whole model to every router. */
function enrollmentOnly(command: AppliedChanges['command']): boolean {
  return command.type === 'edgeRouter.enroll' || command.type === 'edgeRouter.reEnroll';
}

/** A router that may hold no circuit or link at all: deleted, or disabled. */
function isRevoked(row: EdgeRouter | undefined): boolean {
  return row === undefined || row.disabled;
}

/** Links a router reported, when the message is well formed (at most 10,000 links). */
export function readLinkReport(value: unknown): ReportedLink[] | undefined {
  if (!Array.isArray(value) || value.length > 10_000) return undefined;
  const links: ReportedLink[] = [];
  for (const item of value) {
    if (typeof item !== 'object' || item === null) return undefined;
    const { id, destRouterId, latencyMs } = item as Record<string, unknown>;
    if (typeof id !== 'string' || id.length === 0 || id.length > 512 || typeof destRouterId !== 'string' || destRouterId.length === 0 || destRouterId.length > 512) return undefined;
    links.push({ id, destRouterId, latencyMs: typeof latencyMs === 'number' && Number.isFinite(latencyMs) ? latencyMs : null });
  }
  return links;
}

/**
 * Why a router's circuit report is not written, or undefined. A router reports only circuits it is the ingress of,
 * so the path must be there and start at the reporting router: without it the event would name no ingress and any
 * router could write events for any identity.
 */
function circuitReportRefusal(routerId: string, report: CircuitReport): string | undefined {
  if (!report.routers || report.routers.length === 0) return 'it names no routers (path)';
  if (report.routers[0] !== routerId) return 'it names another ingress';
  return undefined;
}
