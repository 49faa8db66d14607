// The session requests refused for failing posture, per identity, as the real controller keeps them for
// `/identities/{id}/failed-service-requests`: which service and session type, which policies were tried and which of
// their checks failed, with the posture the check saw. In memory on the controller that refused the request, and
// bounded: the newest requests of each identity, for a bounded number of identities.
import type { ServicePolicy, ServicePolicyType } from '../model/service-entities.ts';
import type { CheckResult, PostureState } from './posture-evaluation.ts';

/** Refused requests kept per identity (the oldest goes first). */
export const failedRequestsPerIdentity = 50;
/** Identities kept (the one refused longest ago goes first). */
export const failedRequestIdentityLimit = 10_000;

export interface FailedServiceRequest {
  readonly apiSessionId: string;
  readonly serviceId: string;
  readonly serviceName: string;
  readonly sessionType: ServicePolicyType;
  /** RFC 3339. */
  readonly when: string;
  /** The session's posture when it was refused. */
  readonly posture: PostureState;
  /** Every policy tried, each with its failing checks. */
  readonly policyFailures: ReadonlyArray<{ readonly policy: ServicePolicy; readonly checks: readonly CheckResult[] }>;
}

export class FailedServiceRequestLog {
  private readonly byIdentity = new Map<string, FailedServiceRequest[]>();

  constructor(
    private readonly perIdentity = failedRequestsPerIdentity,
    private readonly identityLimit = failedRequestIdentityLimit,
  ) {}

  record(identityId: string, request: FailedServiceRequest): void {
    const requests = this.byIdentity.get(identityId) ?? [];
    this.byIdentity.delete(identityId);
    requests.push(request);
    if (requests.length > this.perIdentity) requests.splice(0, requests.length - this.perIdentity);
    this.byIdentity.set(identityId, requests);
    if (this.byIdentity.size > this.identityLimit) this.byIdentity.delete(this.byIdentity.keys().next().value!);
  }

  /** Oldest first. */
  forIdentity(identityId: string): readonly FailedServiceRequest[] {
    return this.byIdentity.get(identityId) ?? [];
  }
}
