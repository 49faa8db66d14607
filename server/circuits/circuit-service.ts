// The controller's side of `circuit.create`: reads the rows and the cluster's presence (terminators, routers and
// their links: in memory here and on the other controllers, asked at most once a `presenceCacheMs`), lets the planner
// decide, and signs the route for the routers on the path. Nothing is written: no raft command per circuit.
import { randomBytes } from 'node:crypto';
import { RouteSigner, type CircuitRoute, type SignedRoute } from '../../common/circuits/circuit-route.ts';
import type { CircuitRefusalCode } from '../../common/control-channel/control-messages.ts';
import type { Logger } from '../../common/log/logger.ts';
import type { Clock } from '../../common/time/clock.ts';
import type { TerminatorRecord } from '../edge/terminator-directory.ts';
import type { ServiceAccessService } from '../edge/service-access-service.ts';
import type { EdgeRouter } from '../model/router-entities.ts';
import { routerTables } from '../model/router-entities.ts';
import type { Service } from '../model/service-entities.ts';
import { serviceTables } from '../model/service-entities.ts';
import type { ModelStore } from '../store/model-store.ts';
import { linkGraph, type RouterLinkReport } from './circuit-paths.ts';
import { planCircuit } from './circuit-planner.ts';

export type CircuitAnswer = { readonly route: SignedRoute } | { readonly refused: { readonly code: CircuitRefusalCode; readonly message: string } };

/** What the circuit service reads of the cluster's presence. */
export interface CircuitPresence {
  terminators(): Promise<readonly TerminatorRecord[]>;
  /** Every connected router's last link report. */
  linkReports(): Promise<readonly RouterLinkReport[]>;
  connectedRouters(): Promise<ReadonlySet<string>>;
}

export interface CircuitServiceDeps {
  readonly controllerId: string;
  readonly store: ModelStore;
  readonly access: ServiceAccessService;
  readonly presence: CircuitPresence;
  /** The control certificate's chain and key: what routers check routes against. */
  readonly signing: { readonly certPem: string; readonly keyPem: string };
  readonly clock: Clock;
  readonly logger: Logger;
}

export interface CircuitOutcome {
  readonly routerId: string;
  readonly service: string;
  readonly answer: CircuitAnswer;
  readonly route?: CircuitRoute;
}

export class CircuitService {
  private readonly signer: RouteSigner;

  constructor(private readonly deps: CircuitServiceDeps) {
    this.signer = new RouteSigner(deps.signing.keyPem, deps.signing.certPem);
  }

  /** A router's request (not yet checked: it came off the wire). */
  async create(routerId: string, request: unknown): Promise<CircuitOutcome> {
    const body = request as { service?: unknown; avoidRouters?: unknown } | null;
    const serviceText = typeof body?.service === 'string' ? body.service : '';
    const avoid = Array.isArray(body?.avoidRouters) ? body.avoidRouters.filter((id): id is string => typeof id === 'string').slice(0, 64) : [];
    if (serviceText === '' || serviceText.length > 512) {
      return { routerId, service: serviceText.slice(0, 64), answer: { refused: { code: 'INVALID_REQUEST', message: 'circuit.create needs a service name' } } };
    }
    const { store } = this.deps;
    const services = store.table<Service>(serviceTables.services);
    const service = services.findUnique('name', serviceText) ?? services.get(serviceText);
    const router = store.table<EdgeRouter>(routerTables.edgeRouters).get(routerId);
    const holder = { id: routerId, roleAttributes: router?.roleAttributes ?? [] };
    const [terminators, reports, connected] = await Promise.all([this.deps.presence.terminators(), this.deps.presence.linkReports(), this.deps.presence.connectedRouters()]);
    const now = this.deps.clock.now();
    const plan = planCircuit({
      routerId,
      router,
      service: service ? { id: service.id, name: service.name } : undefined,
      access: service ? this.deps.access.accessFor(holder).get(service.id) : undefined,
      posture: { isMfaComplete: false },
      terminators,
      graph: linkGraph(reports, connected),
      avoidRouters: new Set(avoid),
      nowMs: now,
    });
    if (!plan.ok) return { routerId, service: serviceText, answer: { refused: { code: plan.code, message: plan.message } } };
    const route: CircuitRoute = {
      circuitId: randomBytes(16).toString('base64url'),
      serviceId: service!.id,
      serviceName: service!.name,
      identityId: routerId,
      routers: plan.path.routers,
      links: plan.path.links,
      terminator: { id: plan.terminator.id, routerId: plan.terminator.routerId, address: plan.terminator.address },
      controllerId: this.deps.controllerId,
      issuedAt: now,
    };
    return { routerId, service: serviceText, answer: { route: this.signer.sign(route) }, route };
  }
}
