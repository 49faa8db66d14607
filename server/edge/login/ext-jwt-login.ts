// method=ext-jwt, and the secondary external JWT. A primary login takes the Bearer tokens of the request (no
// zt-session): the first that verifies against an enabled signer and names an identity, by id or by externalId,
// whose policy allows that signer, logs it in. As a secondary factor, a session whose policy requires a signer must
// carry a valid JWT from that signer, naming the same identity, on every request.
import type { Clock } from '../../../common/time/clock.ts';
import type { Logger } from '../../../common/log/logger.ts';
import type { AuthPolicyService } from '../auth-policy-service.ts';
import type { ExternalJwtSignerService } from '../ext-jwt-signer-service.ts';
import type { ExternalJwtSigner, Identity } from '../../model/entities.ts';
import { tables } from '../../model/entities.ts';
import type { ModelStore } from '../../store/model-store.ts';
import { EdgeError, type AuthenticationRefusal } from '../edge-error.ts';
import type { ExtJwtVerifier, JwtFailureReason } from '../../auth/ext-jwt/ext-jwt-verifier.ts';
import { isIdentityDisabled } from '../../auth/identity-state.ts';
import type { PrimaryAuthentication } from './password-login.ts';

const descriptions: Record<JwtFailureReason, string> = { missing: 'no matching token was provided', invalid: 'token is invalid', expired: 'token expired' };

/** `Bearer realm=... error=... error_description=... id=... issuer=...`, parameters separated by spaces. */
export function extJwtChallenge(realm: 'openziti-primary-ext-jwt' | 'openziti-secondary-ext-jwt', error: JwtFailureReason, signers: readonly ExternalJwtSigner[]): string {
  const ids = signers.map((signer) => signer.id).join('|');
  const issuers = signers.map((signer) => signer.issuer).join('|');
  return `Bearer realm="${realm}" error="${error}" error_description="${descriptions[error]}" id="${ids}" issuer="${issuers}"`;
}

export type SecondaryCheck = { ok: true } | { ok: false; reason: JwtFailureReason; signer: ExternalJwtSigner | undefined };

export class ExtJwtLogin {
  constructor(
    private readonly store: ModelStore,
    private readonly policies: AuthPolicyService,
    private readonly signers: ExternalJwtSignerService,
    private readonly verifier: ExtJwtVerifier,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async authenticate(tokens: readonly string[]): Promise<PrimaryAuthentication> {
    const enabled = this.usable(this.signers.enabled());
    let worst: JwtFailureReason = 'missing';
    // What an authentication event reports: the refusal behind the worst reason, the one the challenge names.
    let reported: AuthenticationRefusal = { reason: 'missing: no Bearer token in the Authorization header' };
    for (const token of tokens) {
      const result = await this.verifier.verify(token, enabled);
      if (!result.ok) {
        this.logger.info('ext-jwt authentication failed', { reason: result.reason, detail: result.detail, ...(result.signer ? { signerId: result.signer.id } : {}) });
        if (rank(result.reason) >= rank(worst)) reported = { reason: `${result.reason}: ${result.detail}`, ...(result.signer ? { signerId: result.signer.id } : {}) };
        worst = rank(result.reason) > rank(worst) ? result.reason : worst;
        continue;
      }
      const signer = enabled.find((candidate) => candidate.id === result.signer.id)!;
      const identity = this.identityFor(signer, result.subject);
      const refusal = identity ? this.refusalFor(identity, signer) : `no identity has ${signer.useExternalId ? 'externalId' : 'id'} ${JSON.stringify(result.subject)}`;
      if (refusal) {
        this.logger.info('ext-jwt authentication failed', { reason: 'invalid', detail: refusal, signerId: signer.id, ...(identity ? { identityId: identity.id } : {}) });
        if (rank('invalid') >= rank(worst)) reported = { reason: `invalid: ${refusal}`, signerId: signer.id, ...(identity ? { identityId: identity.id } : {}) };
        worst = 'invalid';
        continue;
      }
      return { identity: identity!, authenticatorId: signer.id, method: 'ext-jwt' };
    }
    if (tokens.length === 0) this.logger.info('ext-jwt authentication failed', { reason: 'missing', detail: 'no Bearer token in the Authorization header' });
    throw new EdgeError('UNAUTHORIZED').withChallenge(extJwtChallenge('openziti-primary-ext-jwt', worst, enabled)).withRefusal(reported);
  }

  /** The secondary factor: one of the tokens is a valid JWT of `signerId` naming `identity`. */
  async checkSecondary(tokens: readonly string[], signerId: string, identity: Identity): Promise<SecondaryCheck> {
    const signer = this.signers.find(signerId);
    if (!signer || !signer.enabled || this.usable([signer]).length === 0) return { ok: false, reason: 'invalid', signer };
    let worst: JwtFailureReason = 'missing';
    for (const token of tokens) {
      const result = await this.verifier.verify(token, [signer]);
      if (result.ok) {
        if (this.identityFor(signer, result.subject)?.id === identity.id) return { ok: true };
        worst = 'invalid';
      } else if (rank(result.reason) > rank(worst)) {
        worst = result.reason;
      }
      this.logger.info('secondary ext-jwt refused', { signerId, identityId: identity.id, reason: result.ok ? 'invalid' : result.reason, detail: result.ok ? 'the token names another identity' : result.detail });
    }
    return { ok: false, reason: worst, signer };
  }

  /** A signer whose certificate has expired (or is not yet valid) verifies nothing. */
  private usable(signers: readonly ExternalJwtSigner[]): ExternalJwtSigner[] {
    const now = this.clock.now();
    return signers.filter((signer) => {
      const valid = (!signer.notBefore || Date.parse(signer.notBefore) <= now) && (!signer.notAfter || Date.parse(signer.notAfter) > now);
      if (!valid) this.logger.warn('external jwt signer certificate is outside its validity period', { signerId: signer.id, notBefore: signer.notBefore, notAfter: signer.notAfter });
      return valid;
    });
  }

  private identityFor(signer: ExternalJwtSigner, subject: string): Identity | undefined {
    const identities = this.store.table<Identity>(tables.identities);
    return signer.useExternalId ? identities.findUnique('externalId', subject) : identities.get(subject);
  }

  private refusalFor(identity: Identity, signer: ExternalJwtSigner): string | undefined {
    if (isIdentityDisabled(identity, this.clock.now())) return 'identity disabled or locked';
    const policy = this.policies.forIdentity(identity);
    if (!policy.primary.extJwt.allowed) return `auth policy ${policy.id} does not allow ext-jwt authentication`;
    const allowed = policy.primary.extJwt.allowedSigners;
    if (allowed.length > 0 && !allowed.includes(signer.id)) return `auth policy ${policy.id} does not allow signer ${signer.id}`;
    return undefined;
  }
}

/** A token that was there but bad says more than one that was missing. */
function rank(reason: JwtFailureReason): number {
  return reason === 'missing' ? 0 : reason === 'expired' ? 1 : 2;
}
