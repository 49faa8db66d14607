// Whether a live circuit may go on, by the model now: the same rules as its `circuit.create` (circuit-service.ts,
// circuit-planner.ts), asked again. An edge client's circuit needs its API session still live (not ended, expired or
// owing authentication; the identity not disabled or deleted) and a Dial grant on the service whose posture checks
// pass (an MFA check with a timeout lapses); a router's own circuit (tunnel listener) needs the router enabled and
// its own Dial grant. Either way the identity's edge router policies must still grant the ingress router, and the
// service's service edge router policies every router of the path (the ingress alone when the path is not known). Pure: the rows and the session lookups are read through the deps; the time is a parameter.
import type { CircuitRevocationCode } from '../../common/control-channel/control-messages.ts';
import type { ServiceAccess } from '../edge/service-access.ts';
import { decideSession, type PostureState } from '../edge/posture-evaluation.ts';
import type { RoleHolder } from '../model/policy-roles.ts';
import type { RouterGrant } from './router-grant-index.ts';

export interface LiveCircuit {
  readonly circuitId: string;
  /** The ingress router: the one that asked for the circuit and holds the dialing connection. */
  readonly routerId: string;
  readonly serviceId: string;
  readonly identityId: string;
  /** The API session an edge client dialed with; absent when the router's own identity dialed. */
  readonly apiSessionId?: string;
  /** The routers of the path, ingress first, when this controller routed it (a circuit learnt from a router's report has none). */
  readonly routers?: readonly string[];
}

export type CircuitVerdict = { readonly ok: true } | { readonly ok: false; readonly code: CircuitRevocationCode; readonly reason: string };

/** An API session by id, as a dial would see it (without counting as activity). */
export type SessionStatus = (apiSessionId: string) => { readonly ok: true; readonly identity: RoleHolder; readonly posture: PostureState } | { readonly ok: false; readonly message: string };

export interface LiveCircuitCheckDeps {
  readonly serviceExists: (serviceId: string) => boolean;
  /** An enabled edge router's identity (id, role attributes), or undefined when it is disabled or deleted. */
  readonly enabledRouter: (routerId: string) => RoleHolder | undefined;
  readonly sessionStatus: SessionStatus;
  /** Why the identity may not dial at all any more (deleted, disabled), or undefined. */
  readonly identityRevoked: (identityId: string) => string | undefined;
  /** What a holder may do with a service (undefined: nothing); dial-grants.ts answers it from the indexes circuit.create keeps. */
  readonly accessFor: (holder: RoleHolder, serviceId: string) => ServiceAccess | undefined;
  /** The routers the holder's edge router policies grant. */
  readonly identityRouters: (holder: RoleHolder) => RouterGrant;
  /** The routers the service's service edge router policies grant, and the transit routers (routersCarryingService). */
  readonly serviceRouters: (serviceId: string) => RouterGrant;
}

/** Checks circuits one pass at a time: each session's status is read once per pass. */
export function checkLiveCircuits(circuits: Iterable<LiveCircuit>, deps: LiveCircuitCheckDeps, nowMs: number): Map<string, CircuitVerdict & { ok: false }> {
  const sessions = new Map<string, ReturnType<SessionStatus>>();
  const revoked = new Map<string, CircuitVerdict & { ok: false }>();
  for (const circuit of circuits) {
    const verdict = checkOne(circuit);
    if (!verdict.ok) revoked.set(circuit.circuitId, verdict);
  }
  return revoked;

  function checkOne(circuit: LiveCircuit): CircuitVerdict {
    if (!deps.serviceExists(circuit.serviceId)) return { ok: false, code: 'SERVICE_REVOKED', reason: 'the service was deleted' };
    let holder: RoleHolder;
    let posture: PostureState;
    if (circuit.apiSessionId !== undefined) {
      let status = sessions.get(circuit.apiSessionId);
      if (!status) sessions.set(circuit.apiSessionId, (status = deps.sessionStatus(circuit.apiSessionId)));
      if (!status.ok) {
        // Disabling or deleting an identity ends its sessions too: say which of the two it was.
        const identity = deps.identityRevoked(circuit.identityId);
        return identity !== undefined ? { ok: false, code: 'IDENTITY_REVOKED', reason: identity } : { ok: false, code: 'SESSION_REVOKED', reason: status.message };
      }
      holder = status.identity;
      posture = status.posture;
    } else {
      const router = deps.enabledRouter(circuit.routerId);
      if (!router) return { ok: false, code: 'ROUTER_REVOKED', reason: 'the ingress router is disabled or deleted' };
      holder = router;
      posture = { isMfaComplete: false };
    }
    const decision = decideSession(deps.accessFor(holder, circuit.serviceId), 'Dial', posture, nowMs);
    if (decision.allowed) {
      if (!deps.identityRouters(holder).has(circuit.routerId)) return { ok: false, code: 'ROUTER_POLICY_REVOKED', reason: 'no edge router policy lets the identity use the ingress router any more' };
      const granted = deps.serviceRouters(circuit.serviceId);
      const excluded = (circuit.routers ?? [circuit.routerId]).find((routerId) => !granted.has(routerId));
      if (excluded !== undefined) return { ok: false, code: 'ROUTER_POLICY_REVOKED', reason: `no service edge router policy lets the service use router ${excluded} any more` };
      return { ok: true };
    }
    if (decision.reason === 'posture') return { ok: false, code: 'POSTURE_REVOKED', reason: 'the posture checks of every policy granting Dial on the service fail now' };
    return { ok: false, code: 'ACCESS_REVOKED', reason: 'no service policy grants Dial on the service any more' };
  }
}
