// Wrong passwords counted toward the auth policy's lockout (primary.updb.maxAttempts), whether at login or as the
// current password of a password change: both are guesses at the same secret. Counted in the replicated model, so
// the count and the lockout hold on every controller and across leaders; with maxAttempts 0 (the default policy's
// "unlimited") nothing is written, and the login throttle is what slows guessing.
import type { Clock } from '../../../common/time/clock.ts';
import type { Logger } from '../../../common/log/logger.ts';
import type { ModelWriter } from '../model-writer.ts';
import type { Identity, UpdbAuthenticator } from '../../model/entities.ts';

export interface LockoutRules {
  readonly maxAttempts: number;
  readonly lockoutDurationMinutes: number;
}

export class PasswordFailures {
  /** Failed-attempt writes in flight, by authenticator: the next attempt for that user waits for them. */
  private readonly pending = new Map<string, Promise<void>>();

  constructor(
    private readonly writer: ModelWriter,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Settles once the earlier failures of this authenticator are in the model, so the next attempt is judged on them. */
  settled(authenticatorId: string): Promise<void> {
    return this.pending.get(authenticatorId) ?? Promise.resolve();
  }

  /** Counts one wrong password without holding up the answer; `during` says where it was given, for the log. */
  record(authenticator: UpdbAuthenticator, identity: Identity, rules: LockoutRules, during: 'login' | 'password change'): void {
    if (rules.maxAttempts <= 0) return;
    const previous = this.settled(authenticator.id);
    const chained = previous.then(() => this.write(authenticator, identity, rules, during));
    this.pending.set(authenticator.id, chained);
    void chained.finally(() => {
      if (this.pending.get(authenticator.id) === chained) this.pending.delete(authenticator.id);
    });
  }

  private async write(authenticator: UpdbAuthenticator, identity: Identity, rules: LockoutRules, during: string): Promise<void> {
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
          during,
          attempts: written.value.failedAttempts,
          lockoutDurationMinutes: rules.lockoutDurationMinutes,
        });
      }
    } catch (error) {
      // The attempt is refused either way; a count that could not be written is logged, not surfaced.
      this.logger.warn('could not record a failed password attempt', { identityId: identity.id, during, error: (error as Error).message });
    }
  }
}
