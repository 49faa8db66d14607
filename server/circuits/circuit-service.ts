// The controller's side of `circuit.create`: reads the rows and the cluster's presence (the service's terminators and
// the link graph: kept in memory from this controller's routers and the other controllers' deltas), lets the planner
// decide, and signs the route for the routers on the path. Nothing is written: no raft command per circuit.
import { randomBytes } from 'node:crypto';
import { circuitIdPattern, isPublicKeyText, RouteSigner, type CircuitRoute, type SignedRoute } from '../../common/circuits/circuit-route.ts';
import type { CircuitRefusalCode } from '../../common/control-channel/control-messages.ts';
import type { Logger } from '../../common/log/logger.ts';
import type { Clock } from '../../common/time/clock.ts';
import type { TerminatorRecord } from '../edge/terminator-directory.ts';
import type { ServiceAccessService } from '../edge/service-access-service.ts';
import type { PostureState } from '../edge/posture-evaluation.ts';
import type { RoleHolder } from '../model/policy-roles.ts';
import type { EdgeRouter } from '../model/router-entities.ts';
import { routerTables } from '../model/router-entities.ts';
import type { Service } from '../model/service-entities.ts';
import { serviceTables } from '../model/service-entities.ts';
import type { ModelStore } from '../store/model-store.ts';
import type { linkGraph, PathTree } from './circuit-paths.ts';
import { planCircuit } from './circuit-planner.ts';
import { DialGrants } from './dial-grants.ts';
import type { RouterGrant } from './router-grant-index.ts';
import { serviceOfSession } from './service-session-lookup.ts';
import { sdkBinding } from '../../common/circuits/terminator-address.ts';
import { checkEdgeHello, type EdgeHelloAnswer } from './edge-client-check.ts';
import { checkEdgeBind, type EdgeBindAnswer } from './edge-bind-check.ts';
import { checkEdgeTokenUpdate, type EdgeTokenUpdateAnswer } from './edge-token-update-check.ts';
import { maxApiSessionTokenLength } from '../../common/edge-protocol/api-session-token.ts';
import { TurnRouteSigner, type EndOfTurn } from './turn-route-signer.ts';

export type CircuitAnswer = { readonly route: SignedRoute } | { readonly refused: { readonly code: CircuitRefusalCode; readonly message: string } };

/** What the circuit service reads of the cluster's presence: each read costs what it returns. */
export interface CircuitPresence {
  /** One service's terminators, in id order. */
  terminatorsOf(serviceId: string): Promise<readonly TerminatorRecord[]>;
  /** The usable links between connected routers, kept as routers and their reports change (read, never changed). */
  linkGraph(): ReturnType<typeof linkGraph>;
  /** The link graph's kept shortest-path trees (MaintainedLinkGraph.pathsFrom); absent, each plan searches. */
  pathsFrom?(from: string, exclusion: object, excluded: (router: string) => boolean): PathTree;
  /** True when the router is connected here and its hello said `routeBatches` (it verifies batch-signed routes). */
  takesRouteBatches?(routerId: string): boolean;
}

/** Who an edge client's API session token belongs to, and its MFA state; or why it cannot dial. */
export type SessionDialer = (
  token: string,
) =>
  | { readonly ok: true; readonly identity: RoleHolder; readonly posture: PostureState; readonly sessionId?: string; /** An OIDC access token's expiry (ms). */ readonly expiresAtMs?: number }
  | { readonly ok: false; readonly message: string };

export interface CircuitServiceDeps {
  readonly controllerId: string;
  readonly store: ModelStore;
  readonly access: ServiceAccessService;
  readonly presence: CircuitPresence;
  /** The control certificate's chain and key: what routers check routes against. */
  readonly signing: { readonly certPem: string; readonly keyPem: string };
  readonly clock: Clock;
  readonly logger: Logger;
  /** What the random and weighted terminator strategies draw from (a number in [0, 1)); Math.random unless a test fixes it. */
  readonly random?: () => number;
  /** The end of the current turn (setImmediate): routes for routers that take batches are signed together then.
   * Absent: every route is signed alone, at once. */
  readonly endOfTurn?: EndOfTurn;
}

export interface CircuitOutcome {
  readonly routerId: string;
  /** The identity dialing when an edge client dialed (absent: the router's own). */
  readonly identityId?: string;
  /** The service's id when the request named one that exists. */
  readonly serviceId?: string;
  /** The API session an edge client dialed with (what revocation checks again: circuit-revocation.ts). */
  readonly apiSessionId?: string;
  readonly service: string;
  readonly answer: CircuitAnswer;
  readonly route?: CircuitRoute;
  /** The true refusal when the answer hides it (a client is not told whether a service it may not dial exists). */
  readonly refusal?: { readonly code: CircuitRefusalCode; readonly message: string };
}

/**
 * What an edge client is told when the service does not exist or it may not dial it: one answer for both, so a
 * client cannot learn which services exist. The controller's log and circuit event keep the true cause.
 */
export const hiddenServiceRefusal = { code: 'SERVICE_NOT_FOUND', message: 'no such service, or this identity may not dial it' } as const;

const noRouters: RouterGrant = { has: () => false };

export class CircuitService {
  private readonly signer: RouteSigner;
  private readonly turnSigner: TurnRouteSigner | undefined;
  private sessionDialer: SessionDialer | undefined;
  /** The policies' answers, kept while the rows they came from stay the same (dial-grants.ts). */
  readonly grants: DialGrants;

  constructor(private readonly deps: CircuitServiceDeps) {
    this.signer = new RouteSigner(deps.signing.keyPem, deps.signing.certPem);
    this.turnSigner = deps.endOfTurn ? new TurnRouteSigner(this.signer, deps.endOfTurn) : undefined;
    this.grants = new DialGrants(deps.store);
  }

  /** Resolves edge clients' API sessions: set once the edge services exist (until then clients are refused). */
  setSessionDialer(dialer: SessionDialer): void {
    this.sessionDialer = dialer;
  }

  /** An SDK's Bind at a router's edge listener (edge-bind-check.ts). */
  edgeBind(routerId: string, request: unknown): EdgeBindAnswer {
    return checkEdgeBind({ store: this.deps.store, grants: this.grants, access: this.deps.access, dialer: this.sessionDialer, controllerId: this.deps.controllerId }, routerId, request, this.deps.clock.now());
  }

  /** An SDK's hello at a router's edge listener (edge-client-check.ts). */
  edgeHello(routerId: string, request: unknown): EdgeHelloAnswer {
    return checkEdgeHello(this.deps.store, this.grants, this.sessionDialer, routerId, request, this.deps.clock.now());
  }

  /** An SDK's UpdateToken at a router's edge listener (edge-token-update-check.ts). */
  edgeTokenUpdate(request: unknown): EdgeTokenUpdateAnswer {
    return checkEdgeTokenUpdate(this.sessionDialer, request);
  }

  /** A router's request (not yet checked: it came off the wire). */
  async create(routerId: string, request: unknown): Promise<CircuitOutcome> {
    const body = request as { service?: unknown; avoidRouters?: unknown; apiSession?: unknown; serviceSession?: unknown; dialerKey?: unknown; resume?: { circuitId?: unknown; terminatorId?: unknown } } | null;
    // A new path for a live circuit: the same id, to the same terminator (the egress holds the connection).
    const resume =
      typeof body?.resume?.circuitId === 'string' && circuitIdPattern.test(body.resume.circuitId) && typeof body.resume.terminatorId === 'string'
        ? { circuitId: body.resume.circuitId, terminatorId: body.resume.terminatorId }
        : undefined;
    let serviceText = typeof body?.service === 'string' ? body.service : '';
    const avoid = Array.isArray(body?.avoidRouters) ? body.avoidRouters.filter((id): id is string => typeof id === 'string').slice(0, 64) : [];
    const serviceSession = typeof body?.serviceSession === 'string' && body.serviceSession !== '' && body.serviceSession.length <= 1024 ? body.serviceSession : undefined;
    if ((serviceText === '' && serviceSession === undefined) || serviceText.length > 512) {
      return { routerId, service: serviceText.slice(0, 64), answer: { refused: { code: 'INVALID_REQUEST', message: 'circuit.create needs a service name' } } };
    }
    const { store } = this.deps;
    const services = store.table<Service>(serviceTables.services);
    const router = store.table<EdgeRouter>(routerTables.edgeRouters).get(routerId);
    let holder: RoleHolder = { id: routerId, roleAttributes: router?.roleAttributes ?? [] };
    let posture: PostureState = { isMfaComplete: false };
    let apiSessionId: string | undefined;
    const client = body?.apiSession !== undefined;
    if (client) {
      const token = typeof body?.apiSession === 'string' && body.apiSession.length <= maxApiSessionTokenLength ? body.apiSession : '';
      const resolved = token === '' || !this.sessionDialer ? { ok: false as const, message: 'no API session' } : this.sessionDialer(token);
      if (!resolved.ok) return { routerId, service: serviceText, answer: { refused: { code: 'INVALID_SESSION', message: resolved.message } } };
      holder = resolved.identity;
      posture = resolved.posture;
      apiSessionId = resolved.sessionId;
    }
    if (serviceSession !== undefined) {
      const named = serviceOfSession(store, serviceSession, apiSessionId);
      if (!named.ok) return { routerId, service: serviceText, answer: { refused: { code: named.code, message: named.message } }, ...(client ? { identityId: holder.id } : {}) };
      serviceText = named.service;
    }
    const service = services.findUnique('name', serviceText) ?? services.get(serviceText);
    if (router?.isTransitRouter) {
      const refused = { code: 'NO_EDGE_ROUTER_POLICY' as const, message: `router ${routerId} is a transit router: it carries circuits between routers, not connections of identities` };
      return { routerId, service: serviceText, answer: { refused }, ...(service ? { serviceId: service.id } : {}), ...(client ? { identityId: holder.id } : {}) };
    }
    const dialerKey = isPublicKeyText(body?.dialerKey) ? body.dialerKey : undefined;
    const terminators = service ? await this.deps.presence.terminatorsOf(service.id) : [];
    // The grants are read after the presence, with no await before the plan: one state of the rows decides it.
    const identityRouters = this.grants.identityRouters(holder);
    const serviceRouters = service ? this.grants.serviceRouters(service) : noRouters;
    const now = this.deps.clock.now();
    const plan = planCircuit({
      routerId,
      dialer: client ? 'client' : 'router',
      router,
      service: service ? { id: service.id, name: service.name, terminatorStrategy: service.terminatorStrategy } : undefined,
      access: service ? this.grants.accessFor(holder, service.id) : undefined,
      posture,
      terminators: resume ? terminators.filter((terminator) => terminator.id === resume.terminatorId) : terminators,
      graph: this.deps.presence.linkGraph(),
      ...(this.deps.presence.pathsFrom ? { pathsFrom: this.deps.presence.pathsFrom.bind(this.deps.presence) } : {}),
      avoidRouters: new Set(avoid),
      identityRouters,
      serviceRouters,
      nowMs: now,
      random: this.deps.random ?? Math.random,
    });
    if (!plan.ok) {
      const hidden = client && (plan.code === 'SERVICE_NOT_FOUND' || plan.code === 'NO_DIAL_POLICY');
      return {
        routerId,
        service: serviceText,
        answer: { refused: hidden ? hiddenServiceRefusal : { code: plan.code, message: plan.message } },
        ...(hidden ? { refusal: { code: plan.code, message: plan.message } } : {}),
        ...(service ? { serviceId: service.id } : {}),
        ...(client ? { identityId: holder.id } : {}),
      };
    }
    // OpenZiti's rule for an SDK's dial: a service that requires encryption needs the dialer's key (the answer is
    // the real controller's text). Edge clients without an SDK (CONNECT) and routers' own dials carry none.
    if (service!.encryptionRequired && serviceSession !== undefined && dialerKey === undefined) {
      const refused = { code: 'ENCRYPTION_DATA_MISSING' as const, message: 'encryption required on service, initiator did not send public header' };
      return { routerId, service: serviceText, serviceId: service!.id, answer: { refused }, ...(client ? { identityId: holder.id } : {}) };
    }
    // The egress signs its `c.ready` with the certificate it enrolled with; the route tells the ingress which one.
    const egressId = plan.path.routers[plan.path.routers.length - 1]!;
    const egressFingerprint = store.table<EdgeRouter>(routerTables.edgeRouters).get(egressId)?.fingerprint;
    if (!egressFingerprint) {
      const refused = { code: 'NO_PATH' as const, message: `router ${egressId}, hosting ${service!.name}, is not enrolled` };
      return { routerId, service: serviceText, serviceId: service!.id, answer: { refused }, ...(client ? { identityId: holder.id } : {}) };
    }
    const route: CircuitRoute = {
      circuitId: resume?.circuitId ?? randomBytes(16).toString('base64url'),
      serviceId: service!.id,
      serviceName: service!.name,
      identityId: holder.id,
      routers: plan.path.routers,
      links: plan.path.links,
      terminator: { id: plan.terminator.id, routerId: plan.terminator.routerId, address: plan.terminator.address, binding: plan.terminator.binding },
      controllerId: this.deps.controllerId,
      egressFingerprint,
      issuedAt: now,
      ...(dialerKey !== undefined && (serviceSession !== undefined || (plan.terminator.binding === sdkBinding && service!.encryptionRequired)) ? { dialerKey } : {}),
      // The ingress verifies readies signed in batches: the egress may sign its readies of one turn together.
      ...(this.deps.presence.takesRouteBatches?.(routerId) ? { readyBatches: true as const } : {}),
    };
    return {
      routerId,
      service: serviceText,
      serviceId: service!.id,
      answer: { route: await this.signRoute(route) },
      route,
      ...(client ? { identityId: holder.id } : {}),
      ...(apiSessionId !== undefined ? { apiSessionId } : {}),
    };
  }

  /** Signed with the turn's other routes when every router on the path takes batches, the ingress included (an
   * ingress older than the batches checks the signature of the route it is answered with). */
  private signRoute(route: CircuitRoute): Promise<SignedRoute> | SignedRoute {
    const presence = this.deps.presence;
    if (!this.turnSigner || !presence.takesRouteBatches) return this.signer.sign(route);
    return this.turnSigner.sign(route, route.routers.every((routerId) => presence.takesRouteBatches!(routerId)));
  }
}
