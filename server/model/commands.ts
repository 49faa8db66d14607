// Every change to the model is one of these commands. They carry every value the apply needs (ids, timestamps,
// hashes) so that every controller applying the same log reaches the same state.
import type { PostureUpdate } from './posture-data.ts';
import type { ApiSession, ApiSessionCertificate, AuthPolicy, Authenticator, Ca, Enrollment, ExternalJwtSigner, Identity, Mfa, SealedValue } from './entities.ts';
import type { ConfigCommand } from './config-commands.ts';
import type { EdgeRouterPolicyCommand } from './edge-router-policy-commands.ts';
import type { IdentityServiceConfigCommand } from './identity-service-config-commands.ts';
import type { RouterCommand } from './router-commands.ts';
import type { ServiceCommand } from './service-commands.ts';
import type { TerminatorCommand } from './terminator-commands.ts';
import type { RevocationCommand } from './revocation-commands.ts';
import type { OidcKeyCommand } from './oidc-key-commands.ts';
import type { ClusterIdentityCommand } from './cluster-identity.ts';
import type { ControllerSettingCommand } from './controller-setting-commands.ts';

export type IdentityChanges = Partial<
  Pick<Identity, 'name' | 'isAdmin' | 'authPolicyId' | 'externalId' | 'roleAttributes' | 'tags' | 'disabledAt' | 'disabledUntil'>
>;

export type AuthenticatorChanges = Partial<{ username: string; password: import('./entities.ts').PasswordHash; tags: Readonly<Record<string, unknown>> }>;

/** Everything of a row but its id and timestamps: what an update replaces. */
export type EntityBody<T> = Omit<T, 'id' | 'createdAt' | 'updatedAt'>;

export type CaChanges = Partial<Pick<Ca, 'name' | 'isAutoCaEnrollmentEnabled' | 'isOttCaEnrollmentEnabled' | 'isAuthEnabled' | 'identityRoles' | 'identityNameFormat' | 'externalIdClaim' | 'tags'>>;

export type ModelCommand =
  | { type: 'identity.create'; identity: Identity; authenticators?: Authenticator[]; enrollments?: Enrollment[] }
  /** Disables an identity until `until` (null: until enabled) and ends its API sessions. */
  | { type: 'identity.disable'; id: string; at: string; until: string | null }
  | { type: 'identity.enable'; id: string; at: string }
  | { type: 'identity.update'; id: string; at: string; changes: IdentityChanges }
  | { type: 'identity.delete'; id: string; allowDefaultAdmin?: boolean }
  | { type: 'authenticator.create'; authenticator: Authenticator }
  | { type: 'authenticator.update'; id: string; at: string; changes: AuthenticatorChanges }
  | { type: 'authenticator.delete'; id: string }
  /** One more failed password; at `maxAttempts` (when above 0) the identity is locked for `lockoutMinutes` (0: until enabled). */
  | { type: 'authenticator.loginFailed'; id: string; at: string; maxAttempts: number; lockoutMinutes: number }
  | { type: 'authenticator.loginSucceeded'; id: string }
  | { type: 'authPolicy.create'; policy: AuthPolicy }
  /** Replaces every field; the `default` policy is stored on its first update. */
  | { type: 'authPolicy.update'; id: string; at: string; policy: EntityBody<AuthPolicy> }
  | { type: 'authPolicy.delete'; id: string }
  | { type: 'extJwtSigner.create'; signer: ExternalJwtSigner }
  | { type: 'extJwtSigner.update'; id: string; at: string; signer: EntityBody<ExternalJwtSigner> }
  | { type: 'extJwtSigner.delete'; id: string }
  | { type: 'ca.create'; ca: Ca }
  | { type: 'ca.update'; id: string; at: string; changes: CaChanges }
  | { type: 'ca.verify'; id: string; at: string }
  | { type: 'ca.delete'; id: string }
  | { type: 'enrollment.create'; enrollment: Enrollment }
  | { type: 'enrollment.delete'; id: string }
  /** A new token, JWT and expiry for an enrollment (its old token no longer enrolls). */
  | { type: 'enrollment.refresh'; id: string; token: string; jwt: string; expiresAt: string; at: string }
  /** Uses up an enrollment: it must still exist with this token and not have expired at `at`. */
  | { type: 'enrollment.complete'; id: string; token: string; at: string; authenticator: Authenticator }
  | { type: 'apiSession.create'; session: ApiSession }
  | { type: 'apiSession.delete'; ids: string[]; reason: 'logout' | 'administrative' | 'expired' }
  | { type: 'apiSession.touch'; activity: Array<[id: string, lastActivityAt: string]> }
  /** A secondary factor was answered: its auth queries leave the session. */
  | { type: 'apiSession.satisfyQuery'; id: string; typeId: string }
  /** Posture responses the client sent: merged into the session's posture data (posture-data.ts). */
  | { type: 'apiSession.posture'; id: string; at: string; updates: PostureUpdate[] }
  | { type: 'apiSession.addCertificate'; id: string; at: string; certificate: ApiSessionCertificate; max: number }
  | { type: 'apiSession.removeCertificate'; id: string; certificateId: string }
  /** Starts a TOTP enrollment; refused (MFA_EXISTS) while the identity has one. */
  | { type: 'mfa.create'; mfa: Mfa }
  /** A live TOTP code of time step `step` verified the enrollment. */
  | { type: 'mfa.verify'; identityId: string; step: number; at: string; apiSessionId?: string }
  | { type: 'mfa.delete'; identityId: string; proof?: MfaProof }
  /** A code answered an MFA challenge: a TOTP step (never reused) or a recovery code (used up). */
  | { type: 'mfa.authenticate'; identityId: string; proof: MfaProof; at: string; apiSessionId?: string }
  | { type: 'mfa.replaceRecoveryCodes'; identityId: string; proof: MfaProof; at: string; recoveryCodes: SealedValue; recoveryCodeHashes: string[] }
  /** A wrong code; at `maxAttempts` (above 0) the identity is locked like a password lockout. */
  | { type: 'mfa.failed'; identityId: string; at: string; maxAttempts: number; lockoutMinutes: number }
  | ServiceCommand
  | ConfigCommand
  | RouterCommand
  | EdgeRouterPolicyCommand
  | TerminatorCommand
  | RevocationCommand
  | OidcKeyCommand
  | ControllerSettingCommand
  | IdentityServiceConfigCommand
  | ClusterIdentityCommand
  /** Raft's own entries (a new leader's no-op, a membership change) advance the applied index and nothing else. */
  | { type: 'raft.noop' }
  | { type: 'raft.config' };

export type ModelCommandType = ModelCommand['type'];

/** What a code proved, checked again in log order: a TOTP time step, or the keyed hash of a recovery code. */
export type MfaProof = { readonly totpStep: number } | { readonly recoveryHash: string };
