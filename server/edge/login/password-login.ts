// method=password: the username selects a updb authenticator, scrypt checks the password. An unknown user, a wrong
// password, a locked or disabled identity and a policy that forbids passwords all cost one scrypt and give the
// same INVALID_AUTH, so neither the answer nor its timing tells which was wrong; the log says which.
import type { Clock } from '../../../common/time/clock.ts';
import type { Logger } from '../../../common/log/logger.ts';
import type { AuthPolicyService } from '../auth-policy-service.ts';
import type { ModelWriter } from '../model-writer.ts';
import type { Authenticator, Identity } from '../../model/entities.ts';
import { tables } from '../../model/entities.ts';
import type { ModelStore } from '../../store/model-store.ts';
import { EdgeError } from '../edge-error.ts';
import { isIdentityDisabled } from '../../auth/identity-state.ts';
import type { PasswordFailures } from './password-failures.ts';
import type { PasswordHasher } from '../../auth/password-hasher.ts';

/** Who a primary login proved to be, and with what: an authenticator's id, or the external JWT signer's. */
export interface PrimaryAuthentication {
  readonly identity: Identity;
  readonly authenticatorId: string;
  readonly method: 'password' | 'cert' | 'ext-jwt';
}

export class PasswordLogin {
  constructor(
    private readonly store: ModelStore,
    private readonly policies: AuthPolicyService,
    private readonly writer: ModelWriter,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly hasher: PasswordHasher,
    private readonly failures: PasswordFailures,
  ) {}

  /** `signal` aborts when the request is abandoned: a hash still waiting in the queue is then never computed. */
  async authenticate(username: string, password: string, signal?: AbortSignal): Promise<PrimaryAuthentication> {
    const found = this.store.table<Authenticator>(tables.authenticators).findUnique('username', username);
    const authenticator = found?.method === 'updb' ? found : undefined;
    const matched = authenticator ? await this.hasher.verify(password, authenticator.password, signal) : await this.hasher.verifyAgainstNothing(password, signal);
    // An earlier failure's count must be in the model before this attempt is judged, or a burst could outrun the lockout.
    if (authenticator) await this.failures.settled(authenticator.id);
    const identity = authenticator ? this.store.table<Identity>(tables.identities).get(authenticator.identityId) : undefined;
    if (!authenticator || !identity) return this.refuse('unknown username');
    if (isIdentityDisabled(identity, this.clock.now())) return this.refuse(identity.disabledUntil ? 'identity locked or disabled until ' + identity.disabledUntil : 'identity disabled', identity, authenticator.id);
    const policy = this.policies.forIdentity(identity);
    if (!policy.primary.updb.allowed) return this.refuse(`auth policy ${policy.id} does not allow password authentication`, identity, authenticator.id);
    if (!matched) {
      // Counted without holding up the answer, so a wrong password for a real user takes as long as an unknown user.
      this.failures.record(authenticator, identity, policy.primary.updb, 'login');
      return this.refuse('wrong password', identity, authenticator.id);
    }
    if (authenticator.failedAttempts) await this.writer.write({ type: 'authenticator.loginSucceeded', id: authenticator.id });
    return { identity, authenticatorId: authenticator.id, method: 'password' };
  }

  private refuse(reason: string, identity?: Identity, authenticatorId?: string): never {
    this.logger.info('password authentication failed', { reason, ...(identity ? { identityId: identity.id } : {}) });
    throw new EdgeError('INVALID_AUTH').withRefusal({ reason, ...(identity ? { identityId: identity.id } : {}), ...(authenticatorId ? { authenticatorId } : {}) });
  }
}
