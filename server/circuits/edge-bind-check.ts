// The controller's side of an SDK's Bind on a router's edge listener (`edge.bind`): the API session must be live, the
// service session token a Bind session of that API session, the identity still granted Bind on the service (posture
// included), and a service edge router policy must let the service use this router. The answer is the terminator the
// router then hosts for the SDK: binding `edge`, the hosting identity, cost and precedence as the SDK asked, and an
// address (`sdk:<terminator id>`) by which the router finds the SDK's listener when a circuit arrives. Nothing is
// written: SDK-hosted terminators live in the registry, as long as the Bind (and the router's channel) lives.
import { maxApiSessionTokenLength } from '../../common/edge-protocol/api-session-token.ts';
import { randomBytes } from 'node:crypto';
import { sdkBinding } from '../../common/circuits/terminator-address.ts';
import type { TerminatorRecord } from '../edge/terminator-directory.ts';
import { decideSession } from '../edge/posture-evaluation.ts';
import type { ServiceAccessService } from '../edge/service-access-service.ts';
import { hashToken } from '../edge/ids.ts';
import type { ServiceSession } from '../model/service-entities.ts';
import { serviceTables } from '../model/service-entities.ts';
import type { ModelStore } from '../store/model-store.ts';
import type { SessionDialer } from './circuit-service.ts';
import type { SessionStatus } from './live-circuit-check.ts';
import { routerGrantLookups } from './router-grant-lookups.ts';
import type { DialGrants } from './dial-grants.ts';

export type EdgeBindRefusalCode = 'INVALID_SESSION' | 'INVALID_REQUEST' | 'NO_BIND_POLICY' | 'INVALID_POSTURE' | 'NO_SERVICE_EDGE_ROUTER_POLICY';

export type EdgeBindAnswer = { readonly terminator: TerminatorRecord } | { readonly refused: { readonly code: EdgeBindRefusalCode; readonly message: string } };

/** An SDK terminator id: what routers put after `sdk:` in its address. */
const terminatorIdPattern = /^[A-Za-z0-9_-]{16,64}$/;

export function sdkTerminatorAddress(terminatorId: string): string {
  return `sdk:${terminatorId}`;
}

export function checkEdgeBind(
  deps: { readonly store: ModelStore; readonly grants: DialGrants; readonly access: ServiceAccessService; readonly dialer: SessionDialer | undefined; readonly controllerId: string },
  routerId: string,
  request: unknown,
  nowMs: number,
): EdgeBindAnswer {
  const body = request as { apiSession?: unknown; serviceSession?: unknown; terminatorId?: unknown; cost?: unknown; precedence?: unknown; instanceId?: unknown } | null;
  const token = typeof body?.apiSession === 'string' && body.apiSession.length <= maxApiSessionTokenLength ? body.apiSession : '';
  const sessionToken = typeof body?.serviceSession === 'string' && body.serviceSession.length <= 4096 ? body.serviceSession : '';
  if (token === '' || sessionToken === '') return { refused: { code: 'INVALID_SESSION', message: 'invalid session' } };
  const resolved = deps.dialer ? deps.dialer(token) : { ok: false as const, message: 'the controller cannot judge API sessions yet' };
  if (!resolved.ok) return { refused: { code: 'INVALID_SESSION', message: resolved.message } };
  const session = deps.store.table<ServiceSession>(serviceTables.serviceSessions).findUnique('tokenHash', hashToken(sessionToken));
  if (!session || session.apiSessionId !== resolved.sessionId) return { refused: { code: 'INVALID_SESSION', message: 'invalid session' } };
  if (session.type !== 'Bind') return { refused: { code: 'INVALID_SESSION', message: `rejecting bind, invalid session type. expected Bind, got ${session.type}` } };
  const access = deps.access.accessFor(resolved.identity).get(session.serviceId);
  const decision = decideSession(access, 'Bind', resolved.posture, nowMs);
  if (!decision.allowed) {
    if (decision.reason === 'posture') return { refused: { code: 'INVALID_POSTURE', message: 'the identity fails the posture checks of every policy granting Bind on the service' } };
    return { refused: { code: 'NO_BIND_POLICY', message: 'the identity may not Bind the service' } };
  }
  if (!routerGrantLookups(deps.store, deps.grants).serviceRouters(session.serviceId).has(routerId)) {
    return { refused: { code: 'NO_SERVICE_EDGE_ROUTER_POLICY', message: 'no service edge router policy lets the service use this router' } };
  }
  const cost = typeof body?.cost === 'number' && Number.isInteger(body.cost) && body.cost >= 0 && body.cost <= 65535 ? body.cost : 0;
  const precedence = body?.precedence === 'required' || body?.precedence === 'failed' ? body.precedence : 'default';
  // A router binding again after a welcome keeps the terminator's id.
  const id = typeof body?.terminatorId === 'string' && terminatorIdPattern.test(body.terminatorId) ? body.terminatorId : randomBytes(16).toString('base64url');
  const at = new Date(nowMs).toISOString();
  const instanceId = typeof body?.instanceId === 'string' && body.instanceId.length <= 256 ? body.instanceId : '';
  return {
    terminator: {
      id,
      serviceId: session.serviceId,
      routerId,
      binding: sdkBinding,
      address: sdkTerminatorAddress(id),
      identity: instanceId,
      hostIdentityId: resolved.identity.id,
      cost,
      precedence,
      createdAt: at,
      updatedAt: at,
      controllerId: deps.controllerId,
      origin: 'sdk',
      apiSessionId: resolved.sessionId ?? '',
    },
  };
}

/** Whether an SDK-hosted terminator may stay: its API session still live and its identity still granted Bind. */
export function sdkTerminatorStillAllowed(
  deps: { readonly access: ServiceAccessService; readonly status: SessionStatus | undefined },
  terminator: TerminatorRecord,
  nowMs: number,
): boolean {
  if (terminator.origin !== 'sdk' || !deps.status || terminator.apiSessionId === undefined) return true;
  const status = deps.status(terminator.apiSessionId);
  if (!status.ok) return false;
  return decideSession(deps.access.accessFor(status.identity).get(terminator.serviceId), 'Bind', status.posture, nowMs).allowed;
}
