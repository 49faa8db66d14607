// Service sessions: a client's permission, within one API session, to Dial or Bind one service. Opening one needs a
// policy granting that permission whose posture checks pass now. The token is returned once; only its hash is kept.
import type { Clock } from '../../common/time/clock.ts';
import type { ApiSession, Identity } from '../model/entities.ts';
import type { ServicePolicyType, ServiceSession } from '../model/service-entities.ts';
import { serviceTables } from '../model/service-entities.ts';
import type { ModelStore } from '../store/model-store.ts';
import { EdgeError } from './edge-error.ts';
import { hashToken, newEntityId, newSessionToken } from './ids.ts';
import type { ModelWriter } from './model-writer.ts';
import { decideSession, type GrantResult } from './posture-evaluation.ts';
import type { ServiceAccessService } from './service-access-service.ts';
import { FailedServiceRequestLog } from './failed-service-requests.ts';

export class ServiceSessionService {
  constructor(
    private readonly store: ModelStore,
    private readonly writer: ModelWriter,
    private readonly clock: Clock,
    private readonly access: ServiceAccessService,
    /** Requests refused for posture, for `/identities/{id}/failed-service-requests`. */
    readonly failedRequests = new FailedServiceRequestLog(),
  ) {}

  list(): ServiceSession[] {
    return this.table().all();
  }

  forIdentity(identityId: string): ServiceSession[] {
    return this.table().findMany('identityId', identityId);
  }

  forApiSession(apiSessionId: string): ServiceSession[] {
    return this.table().findMany('apiSessionId', apiSessionId);
  }

  find(id: string): ServiceSession | undefined {
    return this.table().get(id);
  }

  get(id: string): ServiceSession {
    const session = this.find(id);
    if (!session) throw EdgeError.notFound('session', id);
    return session;
  }

  /** An identity's own session; another identity's is reported as not found, as if it did not exist. */
  getOwn(id: string, identityId: string): ServiceSession {
    const session = this.find(id);
    if (!session || session.identityId !== identityId) throw EdgeError.notFound('session', id);
    return session;
  }

  /**
   * Opens a session, refused as the real controller refuses it: a service the identity cannot see is NOT_FOUND,
   * one it sees without this permission is a validation error on serviceId, and failing posture is INVALID_POSTURE.
   */
  async create(identity: Identity, apiSession: ApiSession, serviceId: string, type: ServicePolicyType): Promise<{ session: ServiceSession; token: string }> {
    const now = this.clock.now();
    const access = this.access.accessFor(identity).get(serviceId);
    const decision = decideSession(access, type, apiSession, now);
    if (!decision.allowed) {
      if (decision.reason === 'hidden') throw EdgeError.notFound('service', serviceId);
      if (decision.reason === 'not-granted') throw EdgeError.validation('serviceId', 'service not found', serviceId);
      this.failedRequests.record(identity.id, {
        apiSessionId: apiSession.id,
        serviceId,
        serviceName: access!.service.name,
        sessionType: type,
        when: new Date(now).toISOString(),
        posture: { isMfaComplete: apiSession.isMfaComplete, mfaCompletedAt: apiSession.mfaCompletedAt ?? null },
        policyFailures: decision.failing.map((result) => ({ policy: result.grant.policy, checks: result.checks.filter((check) => !check.isPassing) })),
      });
      throw postureRefusal(decision.failing);
    }
    const token = newSessionToken();
    const at = new Date(now).toISOString();
    const session: ServiceSession = {
      id: newEntityId(),
      createdAt: at,
      updatedAt: at,
      tags: {},
      apiSessionId: apiSession.id,
      identityId: identity.id,
      serviceId,
      type,
      tokenHash: hashToken(token),
      servicePolicyIds: [...decision.passingPolicyIds],
    };
    await this.writer.write({ type: 'serviceSession.create', session });
    return { session, token };
  }

  async delete(ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await this.writer.write({ type: 'serviceSession.delete', ids: [...ids] });
  }

  private table() {
    return this.store.table<ServiceSession>(serviceTables.serviceSessions);
  }
}

/** The real controller's cause: the failing policy ids in Go's list format, as an UNHANDLED nested error. */
function postureRefusal(failing: readonly GrantResult[]): EdgeError {
  const ids = failing.map((result) => result.grant.policy.id).join(' ');
  return new EdgeError('INVALID_POSTURE', { code: 'UNHANDLED', message: `Failed to pass posture checks for service policies: [${ids}]` });
}
