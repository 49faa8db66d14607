// method=password: the username selects a updb authenticator, scrypt checks the password. An unknown user, a wrong
// password, a locked or disabled identity and a policy that forbids passwords all cost one scrypt and give the
// same INVALID_AUTH, so neither the answer nor its timing tells which was wrong; the log says which.
import type { Clock } from '../../common/time/clock.ts';
import type { Logger } from '../../common/log/logger.ts';
import type { AuthPolicyService } from '../edge/auth-policy-service.ts';
import type { ModelWriter } from '../edge/model-writer.ts';
import type { Authenticator, Identity, UpdbAuthenticator } from '../model/entities.ts';
import { tables } from '../model/entities.ts';
import type { ModelStore } from '../store/model-store.ts';
import { ApiError } from '../web/api-error.ts';
import { isIdentityDisabled } from './identity-state.ts';
import { verifyAgainstNothing, verifyPassword } from './password-hasher.ts';

/** Who a primary login proved to be, and with what: an authenticator's id, or the external JWT signer's. */
export interface PrimaryAuthentication {
  readonly identity: Identity;
  readonly authenticatorId: string;
  readonly method: 'password' | 'cert' | 'ext-jwt';
}

export class PasswordLogin {
  /** Failed-attempt writes in flight, by authenticator: the next attempt for that user waits for them. */
  private readonly pendingFailures = new Map<string, Promise<void>>();

  constructor(
    private readonly store: ModelStore,
    private readonly policies: AuthPolicyService,
    private readonly writer: ModelWriter,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async authenticate(username: string, password: string): Promise<PrimaryAuthentication> {
    const found = this.store.table<Authenticator>(tables.authenticators).findUnique('username', username);
    const authenticator = found?.method === 'updb' ? found : undefined;
    const matched = authenticator ? await verifyPassword(password, authenticator.password) : await verifyAgainstNothing(password);
    // An earlier failure's count must be in the model before this attempt is judged, or a burst could outrun the lockout.
    if (authenticator) await this.pendingFailures.get(authenticator.id);
    const identity = authenticator ? this.store.table<Identity>(tables.identities).get(authenticator.identityId) : undefined;
    if (!authenticator || !identity) return this.refuse('unknown username');
    if (isIdentityDisabled(identity, this.clock.now())) return this.refuse(identity.disabledUntil ? 'identity locked or disabled until ' + identity.disabledUntil : 'identity disabled', identity, authenticator.id);
    const policy = this.policies.forIdentity(identity);
    if (!policy.primary.updb.allowed) return this.refuse(`auth policy ${policy.id} does not allow password authentication`, identity, authenticator.id);
    if (!matched) {
      // Counted without holding up the answer, so a wrong password for a real user takes as long as an unknown user.
      this.trackFailure(authenticator.id, this.countFailure(authenticator, identity, policy.primary.updb));
      return this.refuse('wrong password', identity, authenticator.id);
    }
    if (authenticator.failedAttempts) await this.writer.write({ type: 'authenticator.loginSucceeded', id: authenticator.id });
    return { identity, authenticatorId: authenticator.id, method: 'password' };
  }

  private trackFailure(authenticatorId: string, write: Promise<void>): void {
    const previous = this.pendingFailures.get(authenticatorId) ?? Promise.resolve();
    const chained = previous.then(() => write);
    this.pendingFailures.set(authenticatorId, chained);
    void chained.finally(() => {
      if (this.pendingFailures.get(authenticatorId) === chained) this.pendingFailures.delete(authenticatorId);
    });
  }

  /** Counted in the replicated model, so the count and the lockout hold on every controller and across leaders. */
  private async countFailure(authenticator: UpdbAuthenticator, identity: Identity, rules: { maxAttempts: number; lockoutDurationMinutes: number }): Promise<void> {
    if (rules.maxAttempts <= 0) return;
    try {
      const written = await this.writer.write<{ locked: boolean; failedAttempts: number }>({
        type: 'authenticator.loginFailed',
        id: authenticator.id,
        at: new Date(this.clock.now()).toISOString(),
        maxAttempts: rules.maxAttempts,
        lockoutMinutes: rules.lockoutDurationMinutes,
      });
      if (written.value.locked) {
        this.logger.warn('identity locked after failed password attempts', {
          identityId: identity.id,
          attempts: written.value.failedAttempts,
          lockoutDurationMinutes: rules.lockoutDurationMinutes,
        });
      }
    } catch (error) {
      // The attempt is refused either way; a count that could not be written is logged, not surfaced.
      this.logger.warn('could not record a failed password attempt', { identityId: identity.id, error: (error as Error).message });
    }
  }

  private refuse(reason: string, identity?: Identity, authenticatorId?: string): never {
    this.logger.info('password authentication failed', { reason, ...(identity ? { identityId: identity.id } : {}) });
    throw new ApiError('INVALID_AUTH').withRefusal({ reason, ...(identity ? { identityId: identity.id } : {}), ...(authenticatorId ? { authenticatorId } : {}) });
  }
}
