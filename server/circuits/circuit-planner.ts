// Whether a router may have a circuit for a service, and where it goes: the controller's decision for one
// `circuit.create`. The dialing identity is the tunneling router itself (a tunneler-enabled edge router, its id and
// role attributes, as for hosting). It needs a Dial service policy for the service whose posture checks pass (as
// a service session does: posture-evaluation.ts); then, among the service's terminators that a path reaches, the
// service's terminator strategy picks one (precedence first, then cost: terminator-strategy.ts).
// Edge router policies must let the dialing identity use the ingress router, and service edge router policies must
// let the service use every router on the path: the ingress, the egress and any router between (the path goes around
// routers they exclude; terminators on excluded routers are not candidates).
// Pure: rows, terminators, the link graph and a random source in, a decision out.
import type { CircuitRefusalCode } from '../../common/control-channel/control-messages.ts';
import type { TerminatorRecord } from '../edge/terminator-directory.ts';
import { decideSession, type PostureState } from '../edge/posture-evaluation.ts';
import type { ServiceAccess } from '../edge/service-access.ts';
import { cheapestPaths, type CircuitPath, linkGraph, type PathTree } from './circuit-paths.ts';
import { chooseTerminator } from './terminator-strategy.ts';
import type { RouterGrant } from './router-grant-index.ts';

export type CircuitPlan =
  | { readonly ok: true; readonly terminator: TerminatorRecord; readonly path: CircuitPath }
  | { readonly ok: false; readonly code: CircuitRefusalCode; readonly message: string };

export interface PlanInput {
  readonly routerId: string;
  /** Who dials: the ingress router's own identity (a tunnel listener), or an edge client's (its API session). */
  readonly dialer: 'router' | 'client';
  /** The ingress router's row (undefined when deleted meanwhile). */
  readonly router: { readonly isTunnelerEnabled: boolean } | undefined;
  /** The service as the request named it, and what the router's identity may do with it (undefined: no policy). */
  readonly service: { readonly id: string; readonly name: string; readonly terminatorStrategy?: string } | undefined;
  readonly access: ServiceAccess | undefined;
  /** The client's API session; a router has none, so it never answered an MFA challenge. */
  readonly posture: PostureState;
  readonly terminators: readonly TerminatorRecord[];
  readonly graph: ReturnType<typeof linkGraph>;
  /** The graph's kept shortest-path trees (path-tree-cache.ts): the paths from `from` avoiding `excluded`, for which
   * `exclusion` stands. Absent: one bounded search of `graph` per plan. */
  readonly pathsFrom?: (from: string, exclusion: object, excluded: (router: string) => boolean) => PathTree;
  /** Routers a failed setup of this connection could not get through. */
  readonly avoidRouters: ReadonlySet<string>;
  /** The routers the dialing identity's edge router policies grant (the system policy included). */
  readonly identityRouters: RouterGrant;
  /** The routers the service's service edge router policies grant. */
  readonly serviceRouters: RouterGrant;
  readonly nowMs: number;
  /** A number in [0, 1): what the random and weighted strategies draw. */
  readonly random: () => number;
}

export function planCircuit(input: PlanInput): CircuitPlan {
  const { service } = input;
  if (!input.router) return refuse('NOT_TUNNELER', `router ${input.routerId} is not an edge router`);
  if (input.dialer === 'router' && !input.router.isTunnelerEnabled) return refuse('NOT_TUNNELER', `router ${input.routerId} is not tunneler-enabled, so it has no identity to dial services with`);
  if (!input.identityRouters.has(input.routerId)) return refuse('NO_EDGE_ROUTER_POLICY', `no edge router policy lets the ${who(input)} use router ${input.routerId}`);
  if (!service) return refuse('SERVICE_NOT_FOUND', 'no such service');
  const decision = decideSession(input.access, 'Dial', input.posture, input.nowMs);
  if (!decision.allowed) {
    if (decision.reason === 'posture') {
      const failing = decision.failing.flatMap((grant) => grant.checks.filter((check) => !check.isPassing).map((check) => `${check.check.name} (${check.check.typeId})`));
      return refuse('INVALID_POSTURE', `the ${who(input)} fails the posture checks of every policy granting Dial on ${service.name}: ${[...new Set(failing)].join(', ')}`);
    }
    return refuse('NO_DIAL_POLICY', `no service policy lets the ${who(input)} Dial ${service.name}`);
  }
  if (!input.serviceRouters.has(input.routerId)) return refuse('NO_SERVICE_EDGE_ROUTER_POLICY', `no service edge router policy lets ${service.name} use router ${input.routerId}`);
  const hosted = input.terminators.filter((terminator) => terminator.serviceId === service.id);
  if (hosted.length === 0) return refuse('NO_TERMINATORS', `service ${service.name} has no terminators: no router hosts it now`);
  const candidates = hosted.filter((terminator) => input.serviceRouters.has(terminator.routerId));
  if (candidates.length === 0) {
    return refuse('NO_SERVICE_EDGE_ROUTER_POLICY', `no service edge router policy lets ${service.name} use a router hosting it (${[...new Set(hosted.map((t) => t.routerId))].join(', ')})`);
  }
  // Routers the service may not use are avoided like routers a failed setup could not get through. One search from
  // the ingress, skipping them and ending once every candidate's router has its path, serves every candidate: no copy
  // of the graph per circuit.
  const excluded = (routerId: string) => input.avoidRouters.has(routerId) || !input.serviceRouters.has(routerId);
  const targets = new Set(candidates.map((terminator) => terminator.routerId).filter((routerId) => routerId === input.routerId || !excluded(routerId)));
  const reachable: Array<{ id: string; precedence: TerminatorRecord['precedence']; cost: number; pathCost: number; terminator: TerminatorRecord; path: CircuitPath }> = [];
  // Routers to avoid after a failed setup are this connection's own: such a plan searches afresh, all others read the
  // ingress's kept tree for the service's routers.
  const paths =
    input.pathsFrom && input.avoidRouters.size === 0
      ? input.pathsFrom(input.routerId, input.serviceRouters, (routerId) => !input.serviceRouters.has(routerId))
      : cheapestPaths(input.graph, input.routerId, { excluded, targets });
  for (const terminator of candidates) {
    if (input.avoidRouters.has(terminator.routerId) && terminator.routerId !== input.routerId) continue;
    const path = paths.to(terminator.routerId);
    if (!path) continue;
    reachable.push({ id: terminator.id, precedence: terminator.precedence, cost: terminator.cost, pathCost: path.cost, terminator, path });
  }
  const best = chooseTerminator(reachable, service.terminatorStrategy ?? 'smartrouting', input.random);
  if (!best) return refuse('NO_PATH', `no path of links from router ${input.routerId} reaches a router hosting ${service.name} (${[...new Set(candidates.map((t) => t.routerId))].join(', ')})`);
  return { ok: true, terminator: best.terminator, path: best.path };
}

function who(input: PlanInput): string {
  return input.dialer === 'router' ? `identity of router ${input.routerId}` : 'identity';
}

function refuse(code: CircuitRefusalCode, message: string): CircuitPlan {
  return { ok: false, code, message };
}
