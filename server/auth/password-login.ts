// method=password: the username selects a updb authenticator, scrypt checks the password. An unknown user, a wrong
// password and a disabled identity all cost one scrypt and give the same INVALID_AUTH, so neither the answer nor
// its timing tells which was wrong.
import type { Clock } from '../../common/time/clock.ts';
import type { Logger } from '../../common/log/logger.ts';
import type { Authenticator, Identity } from '../model/entities.ts';
import { tables } from '../model/entities.ts';
import type { ModelStore } from '../store/model-store.ts';
import { ApiError } from '../web/api-error.ts';
import { defaultAuthPolicy } from '../edge/default-auth-policy.ts';
import { verifyAgainstNothing, verifyPassword } from './password-hasher.ts';

export interface PrimaryAuthentication {
  readonly identity: Identity;
  readonly authenticator: Authenticator;
  readonly method: 'password';
}

export class PasswordLogin {
  constructor(
    private readonly store: ModelStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async authenticate(username: string, password: string): Promise<PrimaryAuthentication> {
    const authenticator = this.store.table<Authenticator>(tables.authenticators).findUnique('username', username);
    const matched = authenticator ? await verifyPassword(password, authenticator.password) : await verifyAgainstNothing(password);
    const identity = authenticator ? this.store.table<Identity>(tables.identities).get(authenticator.identityId) : undefined;
    if (!matched || !authenticator || !identity) {
      this.logger.info('password authentication failed', { reason: authenticator ? 'wrong password' : 'unknown username' });
      throw new ApiError('INVALID_AUTH');
    }
    if (this.isDisabled(identity)) {
      this.logger.info('password authentication failed', { reason: 'identity disabled', identityId: identity.id });
      throw new ApiError('INVALID_AUTH');
    }
    if (!defaultAuthPolicy.primary.updb.allowed) throw new ApiError('INVALID_AUTH');
    return { identity, authenticator, method: 'password' };
  }

  private isDisabled(identity: Identity): boolean {
    if (!identity.disabledAt) return false;
    return identity.disabledUntil === null || Date.parse(identity.disabledUntil) > this.clock.now();
  }
}
