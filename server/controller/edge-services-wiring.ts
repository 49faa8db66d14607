// Builds the edge services of one controller from its options: the model services, the three primary logins and
// the enrollment settings (who signs client certificates and enrollment JWTs, and where clients enroll).
import type { AuthenticationAttempt, AuthenticationOutcome } from '../events/authentication-events.ts';
import type { Logger } from '../../common/log/logger.ts';
import type { Clock } from '../../common/time/clock.ts';
import { CertLogin } from '../edge/login/cert-login.ts';
import { ExtJwtVerifier } from '../auth/ext-jwt/ext-jwt-verifier.ts';
import { JwksCache } from '../auth/ext-jwt/jwks-cache.ts';
import { ExtJwtLogin } from '../edge/login/ext-jwt-login.ts';
import { PasswordLogin } from '../edge/login/password-login.ts';
import { PasswordFailures } from '../edge/login/password-failures.ts';
import { PasswordHasher } from '../auth/password-hasher.ts';
import { defaultHashQueueLimits, HashQueue } from '../edge/login/hash-queue.ts';
import { defaultLoginThrottleLimits, LoginThrottle } from '../edge/login/login-throttle.ts';
import { ApiSessionService } from '../edge/api-session-service.ts';
import { AuthPolicyService } from '../edge/auth-policy-service.ts';
import { AuthenticatorService } from '../edge/authenticator-service.ts';
import { CaService } from '../edge/ca-service.ts';
import type { EdgeServices } from '../edge/edge-services.ts';
import { EnrollmentService } from '../edge/enrollment-service.ts';
import { ExternalJwtSignerService } from '../edge/ext-jwt-signer-service.ts';
import { ApiSessionCertificates } from '../edge/api-session-certificates.ts';
import { IdentityService } from '../edge/identity-service.ts';
import { defaultMfaCodeLimit, MfaService } from '../edge/mfa-service.ts';
import { buildOverlayServices } from '../edge/overlay-services.ts';
import { EdgeRouterService } from '../edge/edge-router-service.ts';
import type { ControllerNameSources } from '../../common/pki/router-server-names.ts';
import { noRouterPresence, type RouterPresence } from '../edge/router-presence.ts';
import { noEdgeSessions, type EdgeSessionDirectory } from '../edge/edge-session-directory.ts';
import { noTerminators, type TerminatorDirectory } from '../edge/terminator-directory.ts';
import { SecretBox } from '../auth/mfa/secret-box.ts';
import type { ModelWriter } from '../edge/model-writer.ts';
import { join } from 'node:path';
import { withModelTerminators } from '../edge/model-terminators.ts';
import { TerminatorService } from '../edge/terminator-service.ts';
import { NetworkJwtIssuer } from '../edge/network-jwt.ts';
import { DatabaseAdmin } from '../edge/database-admin.ts';
import { RevocationService } from '../edge/revocation-service.ts';
import { ControllerSettingsService } from '../edge/controller-settings.ts';
import { CaJwtIssuer } from '../edge/ca-jwt.ts';
import { writeBackupFile } from '../store/model-backup-file.ts';
import type { ModelStore } from '../store/model-store.ts';
import type { OidcTokenEvent } from '../oidc/oidc-events.ts';
import { buildOidcServices } from '../oidc/oidc-services.ts';
import { defaultTokenLifetimes } from '../oidc/oidc-tokens.ts';
import type { ControllerOptions } from './controller-options.ts';

export interface EdgeWiring {
  readonly store: ModelStore;
  readonly writer: ModelWriter;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly options: ControllerOptions;
  /** This build's version (a backup's header names it). */
  readonly version?: string;
  /** The key that seals TOTP secrets (edge.totp.secretKeyFile). */
  readonly mfaKey: Buffer;
  /** https://host:port of every client API binding; the first is the enrollment JWT's issuer. */
  readonly clientApiOrigins: readonly string[];
  /** Which routers are connected to the cluster (none when unset). */
  readonly routerPresence?: RouterPresence;
  /** The terminators the cluster's routers registered (none when unset). */
  readonly terminators?: TerminatorDirectory;
  /** Which identities hold SDK edge channels on the cluster's routers (none when unset). */
  readonly edgeSessions?: EdgeSessionDirectory;
  /** The cluster members' control addresses now, for router enrollment JWTs (this controller's when unset). */
  readonly controlAddresses?: () => readonly string[];
  /** The controllers' certificates and web addresses now, whose names routers may not have on their certificates. */
  readonly controllerNames?: () => ControllerNameSources;
  /** Told of every primary login attempt (nothing when unset). */
  readonly onAuthentication?: (attempt: AuthenticationAttempt) => void;
  /** Told how every primary login ended, throttled ones included (nothing when unset). */
  readonly onAuthenticationOutcome?: (method: AuthenticationAttempt['method'], outcome: AuthenticationOutcome) => void;
  /** Told of every wrong TOTP or recovery code (nothing when unset). */
  readonly onMfaCodeFailure?: () => void;
  /** Told of OIDC tokens issued, refreshed, refused and revoked (nothing when unset). */
  readonly onOidcTokenEvent?: (event: OidcTokenEvent) => void;
}

export function buildEdgeServices(wiring: EdgeWiring): EdgeServices {
  const { store, writer, clock, logger, options, mfaKey, clientApiOrigins, routerPresence, terminators, controlAddresses, controllerNames, onAuthentication } = wiring;
  const authLogger = logger.child('auth');
  const terminatorDirectory = withModelTerminators(terminators ?? noTerminators, store);
  const identityTls = options.cluster.tls;
  const authPolicies = new AuthPolicyService(store, writer, clock);
  const identities = new IdentityService(store, writer, clock);
  const passwordHashQueue = new HashQueue(options.passwordHashing ?? defaultHashQueueLimits);
  const hasher = new PasswordHasher(passwordHashQueue);
  // One count of wrong passwords, whether given at login or as a password change's current password.
  const passwordFailures = new PasswordFailures(writer, clock, authLogger);
  const authenticators = new AuthenticatorService(store, writer, clock, authPolicies, hasher, passwordFailures);
  const sessions = new ApiSessionService(store, writer, clock, { timeoutMs: options.sessionTimeoutMs, activityBatchSize: options.activityUpdateBatchSize });
  const signers = new ExternalJwtSignerService(store, writer, clock);
  const cas = new CaService(store, writer, clock);
  const signer = options.enrollment?.signer;
  const enrollments = new EnrollmentService(store, writer, clock, authenticators, {
    ...(signer ? { signer } : {}),
    jwtKey: { certPem: identityTls.certPem, keyPem: identityTls.keyPem },
    issuer: clientApiOrigins[0] ?? `https://${options.cluster.address.replace(/^tls:/, '')}`,
    controllers: clientApiOrigins,
    identityDurationMs: options.enrollment?.identityDurationMs ?? 180 * 60_000,
    caBundlePem: identityTls.caPem,
  });
  const mfaCodeLimit = {
    maxFailedCodes: options.totp?.maxFailedCodes ?? defaultMfaCodeLimit.maxFailedCodes,
    lockoutMs: options.totp?.lockoutMs ?? defaultMfaCodeLimit.lockoutMs,
  };
  const mfa = new MfaService(store, writer, clock, new SecretBox(mfaKey), authPolicies, options.totp?.hostname ?? 'edgeward.local', logger.child('mfa'), mfaCodeLimit, wiring.onMfaCodeFailure);
  // JWKS endpoints are trusted when a public root or this controller's own CA bundle signed them, and fetched only
  // from public addresses unless the operator allows private ones.
  const jwks = new JwksCache({ trustedCaPems: [identityTls.caPem], allowPrivateAddresses: options.extJwt?.allowPrivateJwksAddresses ?? false });
  const verifier = new ExtJwtVerifier({ jwks, now: () => clock.now() });
  const revocations = new RevocationService(store, writer, clock);
  const oidcOptions = options.oidc;
  const oidc = buildOidcServices({
    enabled: (oidcOptions?.enabled ?? true) && clientApiOrigins.length > 0,
    store,
    writer,
    clock,
    controllerId: options.id,
    origin: clientApiOrigins[0] ?? `https://${options.cluster.address.replace(/^tls:/, '')}`,
    lifetimes: oidcOptions ? { accessTokenMs: oidcOptions.accessTokenMs, refreshTokenMs: oidcOptions.refreshTokenMs, idTokenMs: oidcOptions.idTokenMs } : defaultTokenLifetimes,
    keyRotationMs: oidcOptions?.keyRotationMs ?? 24 * 3_600_000,
    apiSessions: sessions,
    authPolicies,
    revocations,
    ...(wiring.onOidcTokenEvent ? { onTokenEvent: wiring.onOidcTokenEvent } : {}),
  });
  return {
    store,
    identities,
    authenticators,
    sessions,
    sessionCertificates: new ApiSessionCertificates(store, writer, clock, { ...(signer ? { signer } : {}), caBundlePem: identityTls.caPem }),
    authPolicies,
    signers,
    cas,
    enrollments,
    mfa,
    overlay: buildOverlayServices(store, writer, clock),
    routers: new EdgeRouterService(store, writer, clock, {
      ...(signer ? { signer } : {}),
      jwtKey: { keyPem: identityTls.keyPem },
      issuer: clientApiOrigins[0] ?? `https://${options.cluster.address.replace(/^tls:/, '')}`,
      controllers: clientApiOrigins,
      controlAddresses: controlAddresses ?? (() => [options.cluster.address]),
      ...(controllerNames ? { controllerNames } : {}),
      durationMs: options.enrollment?.routerDurationMs ?? 180 * 60_000,
      caBundlePem: identityTls.caPem,
    }),
    routerPresence: routerPresence ?? noRouterPresence,
    edgeSessions: wiring.edgeSessions ?? noEdgeSessions,
    terminators: terminatorDirectory,
    terminatorAdmin: new TerminatorService(store, writer, clock, terminatorDirectory),
    database: databaseAdmin(wiring),
    networkJwt: new NetworkJwtIssuer(
      { keyPem: identityTls.keyPem, issuer: clientApiOrigins[0] ?? `https://${options.cluster.address.replace(/^tls:/, '')}`, controllers: clientApiOrigins, controllerId: options.id },
      clock,
    ),
    revocations,
    oidc,
    controllerSettings: new ControllerSettingsService(store, writer, clock),
    caJwt: new CaJwtIssuer(cas, { keyPem: identityTls.keyPem, issuer: clientApiOrigins[0] ?? `https://${options.cluster.address.replace(/^tls:/, '')}`, controllers: clientApiOrigins }),
    passwordLogin: new PasswordLogin(store, authPolicies, writer, clock, authLogger, hasher, passwordFailures),
    certLogin: new CertLogin(store, authPolicies, cas, identities, clock, authLogger, signer?.certPem),
    extJwtLogin: new ExtJwtLogin(store, authPolicies, signers, verifier, clock, authLogger),
    loginThrottle: new LoginThrottle(options.authThrottle ?? defaultLoginThrottleLimits, clock, authLogger),
    passwordHashQueue,
    caBundlePem: identityTls.caPem,
    clock,
    logger,
    reportAuthentication: onAuthentication ?? (() => undefined),
    countAuthentication: wiring.onAuthenticationOutcome ?? (() => undefined),
  };
}

/** Backups and integrity checks; backups go to `<dataDir>/db-snapshots` unless told otherwise. */
function databaseAdmin({ store, writer, clock, options, version }: EdgeWiring): DatabaseAdmin {
  return new DatabaseAdmin({
    store,
    writer,
    clock,
    defaultBackupDir: join(options.dataDir, 'db-snapshots'),
    origin: { controllerId: options.id, trustDomain: options.cluster.trustDomain, edgewardVersion: version ?? 'unknown' },
    writeBackup: writeBackupFile,
  });
}
