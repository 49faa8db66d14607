// The controller's edge services, built once and shared by both APIs.
import type { AuthenticationAttempt, AuthenticationOutcome } from '../events/authentication-events.ts';
import type { Clock } from '../../common/time/clock.ts';
import type { Logger } from '../../common/log/logger.ts';
import type { CertLogin } from './login/cert-login.ts';
import type { ExtJwtLogin } from './login/ext-jwt-login.ts';
import type { HashQueue } from './login/hash-queue.ts';
import type { LoginThrottle } from './login/login-throttle.ts';
import type { PasswordLogin } from './login/password-login.ts';
import type { ModelStore } from '../store/model-store.ts';
import type { ApiSessionService } from './api-session-service.ts';
import type { ApiSessionCertificates } from './api-session-certificates.ts';
import type { AuthPolicyService } from './auth-policy-service.ts';
import type { AuthenticatorService } from './authenticator-service.ts';
import type { CaService } from './ca-service.ts';
import type { EnrollmentService } from './enrollment-service.ts';
import type { ExternalJwtSignerService } from './ext-jwt-signer-service.ts';
import type { IdentityService } from './identity-service.ts';
import type { MfaService } from './mfa-service.ts';
import type { EdgeRouterService } from './edge-router-service.ts';
import type { OverlayServices } from './overlay-services.ts';
import type { RouterPresence } from './router-presence.ts';
import type { EdgeSessionDirectory } from './edge-session-directory.ts';
import type { TerminatorDirectory } from './terminator-directory.ts';
import type { TerminatorService } from './terminator-service.ts';
import type { NetworkJwtIssuer } from './network-jwt.ts';
import type { DatabaseAdmin } from './database-admin.ts';
import type { RevocationService } from './revocation-service.ts';
import type { ControllerSettingsService } from './controller-settings.ts';
import type { CaJwtIssuer } from './ca-jwt.ts';
import type { OidcServices } from '../oidc/oidc-services.ts';

export interface EdgeServices {
  readonly store: ModelStore;
  readonly identities: IdentityService;
  readonly authenticators: AuthenticatorService;
  readonly sessions: ApiSessionService;
  /** Short-lived client certificates issued to API sessions (`/current-api-session/certificates`). */
  readonly sessionCertificates: ApiSessionCertificates;
  readonly authPolicies: AuthPolicyService;
  readonly signers: ExternalJwtSignerService;
  readonly cas: CaService;
  readonly enrollments: EnrollmentService;
  readonly mfa: MfaService;
  /** Services, service policies, posture checks and service sessions. */
  readonly overlay: OverlayServices;
  /** Edge routers and their enrollment. */
  readonly routers: EdgeRouterService;
  /** Which routers are connected to the cluster now. */
  readonly routerPresence: RouterPresence;
  /** Which identities hold SDK edge channels on the cluster's routers now (`hasEdgeRouterConnection`). */
  readonly edgeSessions: EdgeSessionDirectory;
  /** The terminators the cluster's routers registered, now, and those an admin made (model-terminators.ts). */
  readonly terminators: TerminatorDirectory;
  /** Creates, changes and deletes terminators (the management API's writes). */
  readonly terminatorAdmin: TerminatorService;
  /** Model snapshots and the data-integrity check (`/database/*`). */
  readonly database: DatabaseAdmin;
  /** The network JWT clients bootstrap from (`GET /network-jwts`). */
  readonly networkJwt: NetworkJwtIssuer;
  /** Revoked JWT ids, identities and API sessions (`/revocations`). */
  readonly revocations: RevocationService;
  /** The global and per-controller settings (`/controller-settings`). */
  readonly controllerSettings: ControllerSettingsService;
  /** A third-party CA's auto-enrollment JWT (`/cas/{id}/jwt`). */
  readonly caJwt: CaJwtIssuer;
  /** The OpenID provider at /oidc and the JWT API sessions it issues. */
  readonly oidc: OidcServices;
  readonly passwordLogin: PasswordLogin;
  readonly certLogin: CertLogin;
  readonly extJwtLogin: ExtJwtLogin;
  /** Refused authentication attempts per client address and user, on this controller: over the limit, 429 at once. */
  readonly loginThrottle: LoginThrottle;
  /** Where every password hash of the edge services waits for one of its bounded slots. */
  readonly passwordHashQueue: HashQueue;
  /** The CA bundle (PEM) clients use to trust this controller, served at /.well-known/est/cacerts. */
  readonly caBundlePem: string;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Told of every primary login attempt, for authentication events. */
  readonly reportAuthentication: (attempt: AuthenticationAttempt) => void;
  /** Told how every primary login ended, throttled ones included, for the metrics. */
  readonly countAuthentication: (method: AuthenticationAttempt['method'], outcome: AuthenticationOutcome) => void;
}
