// method=cert: the client certificate from the TLS handshake (leaf first, then the intermediates the client sent)
// must chain to this controller's enrollment CA or to a verified, auth-enabled third-party CA, and its fingerprint
// must belong to a cert authenticator. A third-party CA with auto-enrollment creates the identity on first use.
// Every refusal is the same INVALID_AUTH to the client; the log says why.
import type { Clock } from '../../../common/time/clock.ts';
import type { Logger } from '../../../common/log/logger.ts';
import type { AuthPolicyService } from '../auth-policy-service.ts';
import type { CaService } from '../ca-service.ts';
import { newEntityId } from '../ids.ts';
import type { IdentityService } from '../identity-service.ts';
import type { Authenticator, Ca, Identity } from '../../model/entities.ts';
import { tables } from '../../model/entities.ts';
import type { ModelStore } from '../../store/model-store.ts';
import { EdgeError } from '../edge-error.ts';
import { verifyClientChain, type TrustAnchor } from '../../auth/cert/client-chain-verifier.ts';
import { formatIdentityName } from '../../auth/cert/identity-name-template.ts';
import { isIdentityDisabled } from '../../auth/identity-state.ts';
import type { PrimaryAuthentication } from './password-login.ts';

/** The anchor id of the controller's own enrollment CA. */
export const networkAnchorId = 'network';

export class CertLogin {
  constructor(
    private readonly store: ModelStore,
    private readonly policies: AuthPolicyService,
    private readonly cas: CaService,
    private readonly identities: IdentityService,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** The enrollment CA's certificates (and their issuers); absent when the controller has none. */
    private readonly networkCaPem: string | undefined,
  ) {}

  async authenticate(chain: readonly Buffer[]): Promise<PrimaryAuthentication> {
    if (chain.length === 0) return this.refuse('no client certificate was presented');
    const now = this.clock.now();
    const trustedCas = this.cas.trusted();
    const anchors: TrustAnchor[] = [
      ...(this.networkCaPem ? [{ id: networkAnchorId, certificatesPem: this.networkCaPem }] : []),
      ...trustedCas.map((ca) => ({ id: ca.id, certificatesPem: ca.certPem })),
    ];
    // Expiry is the policy's call (allowExpiredCerts), and the policy depends on whose certificate this is.
    const verified = verifyClientChain(chain, anchors, { now, allowExpired: true });
    if (!verified.ok) return this.refuse(`certificate chain refused (${verified.reason}): ${verified.detail}${this.untrustedCaNote(chain, now)}`);

    let authenticator = this.store.table<Authenticator>(tables.authenticators).findUnique('fingerprint', verified.fingerprint);
    if (!authenticator) {
      const ca = trustedCas.find((candidate) => candidate.id === verified.anchorId);
      if (!ca?.isAutoCaEnrollmentEnabled) return this.refuse(`no identity has the certificate ${verified.fingerprint} (${verified.commonName})`);
      authenticator = await this.autoEnroll(ca, verified.fingerprint, verified.commonName, verified.leaf.toString());
    }
    if (authenticator.method !== 'cert') return this.refuse('the certificate does not belong to a cert authenticator');
    if (authenticator.isIssuedByNetwork && verified.anchorId !== networkAnchorId) return this.refuse('a network-issued certificate chained to another CA');
    const identity = this.store.table<Identity>(tables.identities).get(authenticator.identityId);
    if (!identity) return this.refuse('the certificate authenticator has no identity');
    if (isIdentityDisabled(identity, now)) return this.refuse('identity disabled or locked', identity);
    const policy = this.policies.forIdentity(identity);
    if (!policy.primary.cert.allowed) return this.refuse(`auth policy ${policy.id} does not allow certificate authentication`, identity);
    if (verified.expired && !policy.primary.cert.allowExpiredCerts) return this.refuse(`certificate expired at ${verified.leaf.validTo}`, identity);
    return { identity, authenticatorId: authenticator.id, method: 'cert' };
  }

  /** When the chain ends at a registered CA that may not authenticate yet, the log should say which and why. */
  private untrustedCaNote(chain: readonly Buffer[], now: number): string {
    for (const ca of this.cas.list()) {
      if (ca.isVerified && ca.isAuthEnabled) continue;
      if (verifyClientChain(chain, [{ id: ca.id, certificatesPem: ca.certPem }], { now, allowExpired: true }).ok) {
        return `; it chains to third-party CA ${ca.id} (${ca.name}), which is ${ca.isVerified ? 'not enabled for authentication (isAuthEnabled false)' : 'not verified'}`;
      }
    }
    return '';
  }

  /** First use of a certificate from an auto-enrolling CA: a new identity named by the CA's template. */
  private async autoEnroll(ca: Ca, fingerprint: string, commonName: string, certPem: string): Promise<Authenticator> {
    const identityId = newEntityId();
    const base = formatIdentityName(ca.identityNameFormat, { caName: ca.name, caId: ca.id, commonName, identityId });
    const name = this.freeName(base);
    try {
      await this.identities.create(
        { name, isAdmin: false, roleAttributes: ca.identityRoles },
        {
          id: identityId,
          authenticators: (id, at) => [{ id: newEntityId(), createdAt: at, updatedAt: at, tags: {}, method: 'cert', identityId: id, fingerprint, certPem, isIssuedByNetwork: false, caId: ca.id }],
        },
      );
      this.logger.info('identity auto-enrolled by third-party CA', { caId: ca.id, identityId, name });
    } catch (error) {
      // Two first logins with one certificate race: the loser finds the winner's authenticator.
      const winner = this.store.table<Authenticator>(tables.authenticators).findUnique('fingerprint', fingerprint);
      if (winner) return winner;
      throw error;
    }
    const created = this.store.table<Authenticator>(tables.authenticators).findUnique('fingerprint', fingerprint);
    if (!created) return this.refuse('auto-enrollment did not create an authenticator');
    return created;
  }

  /** The template's name, or with a counter when an identity already has it. */
  private freeName(base: string): string {
    const identities = this.store.table<Identity>(tables.identities);
    if (!identities.findUnique('name', base)) return base;
    for (let n = 2; ; n++) {
      const candidate = `${base}-${n}`;
      if (!identities.findUnique('name', candidate)) return candidate;
    }
  }

  private refuse(reason: string, identity?: Identity): never {
    this.logger.info('certificate authentication failed', { reason, ...(identity ? { identityId: identity.id } : {}) });
    throw new EdgeError('INVALID_AUTH').withRefusal({ reason, ...(identity ? { identityId: identity.id } : {}) });
  }
}
