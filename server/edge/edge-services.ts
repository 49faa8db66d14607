// The controller's edge services, built once and shared by both APIs.
import type { Clock } from '../../common/time/clock.ts';
import type { Logger } from '../../common/log/logger.ts';
import type { PasswordLogin } from '../auth/password-login.ts';
import type { ModelStore } from '../store/model-store.ts';
import type { ApiSessionService } from './api-session-service.ts';
import type { AuthenticatorService } from './authenticator-service.ts';
import type { IdentityService } from './identity-service.ts';

export interface EdgeServices {
  readonly store: ModelStore;
  readonly identities: IdentityService;
  readonly authenticators: AuthenticatorService;
  readonly sessions: ApiSessionService;
  readonly passwordLogin: PasswordLogin;
  readonly clock: Clock;
  readonly logger: Logger;
}
