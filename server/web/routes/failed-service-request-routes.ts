// Management API: `GET /identities/{id}/failed-service-requests`: the identity's session requests refused for
// failing posture on this controller (server/edge/failed-service-requests.ts), oldest first, in the real controller's
// `failedServiceRequest` shape, each failing check with the posture it saw and what it expected.
import type { Middleware } from 'koa';
import type { EdgeServices } from '../../edge/edge-services.ts';
import type { FailedServiceRequest } from '../../edge/failed-service-requests.ts';
import { noTimeout, type CheckResult, type PostureState } from '../../edge/posture-evaluation.ts';
import type { RequestState } from '../koa-state.ts';
import type { ApiRouter } from '../api-router.ts';
import { sendDetail } from './route-kit.ts';

/** Go's zero time, which the real controller sends for a moment that never happened. */
const zeroTime = '0001-01-01T00:00:00.000Z';

export function failedServiceRequestRoutes(router: ApiRouter, services: EdgeServices, admin: Middleware<RequestState>): void {
  router.get('/identities/:id/failed-service-requests', admin, (ctx) => {
    const identity = services.identities.get(ctx.params.id!);
    sendDetail(ctx, services.overlay.sessions.failedRequests.forIdentity(identity.id).map(failedRequestView));
  });
}

function failedRequestView(request: FailedServiceRequest) {
  return {
    apiSessionId: request.apiSessionId,
    serviceId: request.serviceId,
    serviceName: request.serviceName,
    sessionType: request.sessionType,
    when: request.when,
    policyFailures: request.policyFailures.map(({ policy, checks }) => ({
      policyId: policy.id,
      policyName: policy.name,
      checks: checks.map((check) => checkFailureView(check, request.posture)),
    })),
  };
}

/** An MFA check's failure: what the session had, what the check wants, and the moments and timeout it judged by. */
function checkFailureView(result: CheckResult, posture: PostureState) {
  const { check } = result;
  const timedOut = posture.isMfaComplete && result.timeout !== noTimeout && result.timeoutRemaining === 0;
  return {
    postureCheckId: check.id,
    postureCheckName: check.name,
    postureCheckType: check.typeId,
    // No client reports waking or unlocking in this release, so no wake or unlock answer is ever owed.
    actualValue: { passedMfa: posture.isMfaComplete, passedOnWake: true, passedOnUnlock: true, timedOut },
    expectedValue: { passedMfa: true, passedOnWake: check.promptOnWake, passedOnUnlock: check.promptOnUnlock, timedOut: false },
    criteria: {
      passedMfaAt: posture.mfaCompletedAt ?? zeroTime,
      wokenAt: zeroTime,
      unlockedAt: zeroTime,
      timeoutSeconds: result.timeout,
      timeoutRemainingSeconds: result.timeoutRemaining,
    },
  };
}
