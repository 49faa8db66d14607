// OIDC API sessions: a login's tokens stand for an API session (`z_asid`) that no controller had to write down.
// Every request's token is checked here, on whichever controller it reaches, against what that controller's model
// says now: the signing key is published, the identity exists and is enabled, its auth policy is the one it logged
// in under and has not changed since, and no revocation names the token, the session or the identity since the
// token was issued. A session is written to the model only when something must be kept with it (a service session,
// posture data, a session certificate); from then on that row carries it, as a legacy session's does.
import type { Clock } from '../../common/time/clock.ts';
import { isoTime } from '../../common/time/iso-time.ts';
import { isIdentityDisabled } from '../auth/identity-state.ts';
import type { ApiSessionService } from '../edge/api-session-service.ts';
import type { AuthPolicyService } from '../edge/auth-policy-service.ts';
import type { RevocationService } from '../edge/revocation-service.ts';
import type { ApiSession, Identity } from '../model/entities.ts';
import { tables } from '../model/entities.ts';
import { revocationTables, type Revocation } from '../model/revocation-entities.ts';
import type { ModelStore } from '../store/model-store.ts';
import { tokenTypes, type SessionClaims, type VerifiedClaims } from './oidc-claims.ts';
import type { IssuedTokens, OidcTokens } from './oidc-tokens.ts';
import type { SupersededRefreshTokens } from './superseded-refresh-tokens.ts';
import { SeenOidcSessions } from './seen-oidc-sessions.ts';

/** The stand-in for a token hash on a stored OIDC session: never a SHA-256 hex string, so never a legacy token's. */
const oidcTokenHashPrefix = 'oidc:';

export function isOidcSession(session: Pick<ApiSession, 'tokenHash'>): boolean {
  return session.tokenHash.startsWith(oidcTokenHashPrefix);
}

export type SessionCheck =
  | { ok: true; session: ApiSession; identity: Identity; claims: VerifiedClaims }
  | { ok: false; error: 'invalid' | 'expired'; reason: string };

export class OidcSessions {
  /** The sessions a valid access token was seen for here: how a session with no row is judged by id alone. */
  private readonly seen: SeenOidcSessions;

  constructor(
    private readonly store: ModelStore,
    readonly tokens: OidcTokens,
    private readonly sessions: ApiSessionService,
    private readonly policies: AuthPolicyService,
    private readonly revocations: RevocationService,
    private readonly clock: Clock,
    private readonly superseded?: SupersededRefreshTokens,
    maxSeenSessions?: number,
  ) {
    this.seen = new SeenOidcSessions(maxSeenSessions);
  }

  /** An access token presented as `Authorization: Bearer` (or in an edge hello): its session, or why not. */
  checkAccessToken(token: string): SessionCheck {
    const verified = this.tokens.verify(token, tokenTypes.access);
    if (!verified.ok) return verified;
    const check = this.admit(verified.claims);
    if (check.ok) this.seen.saw(verified.claims);
    return check;
  }

  /**
   * A session by id alone (a live circuit's, re-checked), from the newest access token seen for it here; undefined
   * when none was. The same checks as a token's (revoked, identity gone or disabled, auth policy changed), and it has
   * ended once no valid token was seen for an access-token lifetime past the newest one's expiry: a client that
   * refreshes in time never gets there.
   */
  sessionStatus(apiSessionId: string): SessionCheck | undefined {
    const claims = this.seen.get(apiSessionId);
    if (!claims) return undefined;
    if (this.clock.now() > claims.exp * 1000 + this.tokens.lifetimes.accessTokenMs) {
      this.seen.forget(apiSessionId);
      return { ok: false, error: 'expired', reason: 'no valid access token of the API session was presented since its last one expired' };
    }
    return this.admit(claims);
  }

  /** A refresh token: the session it continues, or why not (the same checks as an access token's). */
  checkRefreshToken(token: string, clientId: string): SessionCheck {
    const verified = this.tokens.verify(token, tokenTypes.refresh);
    if (!verified.ok) return verified;
    if (verified.claims.azp !== clientId) return { ok: false, error: 'invalid', reason: `the refresh token was issued to client ${verified.claims.azp}` };
    if (this.superseded?.isSuperseded(verified.claims.jti)) return { ok: false, error: 'invalid', reason: 'the refresh token was already used' };
    return this.admit(verified.claims);
  }

  /** New tokens for a session whose refresh token passed checkRefreshToken; the session's activity counts. */
  refresh(check: Extract<SessionCheck, { ok: true }>): IssuedTokens {
    const { claims } = check;
    const carried: SessionClaims = {
      sub: claims.sub,
      z_asid: claims.z_asid,
      z_t: tokenTypes.access,
      z_ia: check.identity.isAdmin,
      ...(check.identity.externalId ? { z_eid: check.identity.externalId } : {}),
      z_ct: claims.z_ct,
      z_authid: claims.z_authid,
      amr: claims.amr,
      z_ra: claims.z_ra,
      ...(claims.z_mfa ? { z_mfa: true } : {}),
      ...(claims.z_ap ? { z_ap: claims.z_ap } : {}),
      auth_time: claims.auth_time,
      azp: claims.azp,
      ...(claims.scope ? { scope: claims.scope } : {}),
    };
    if (this.sessions.get(check.session.id)) this.sessions.touch(check.session);
    const issued = this.tokens.issue(carried);
    // The refresh token just used is replaced: a copy of it must not refresh again.
    if (claims.z_t === tokenTypes.refresh) this.superseded?.supersede(claims.jti, claims.exp * 1000);
    return issued;
  }

  /** Ends a session everywhere: a revocation of its id, which also ends its stored row if it has one. */
  async revoke(apiSessionId: string): Promise<void> {
    await this.revocations.create({ id: apiSessionId, type: 'API_SESSION', tags: {} }, this.tokens.longestLifetimeMs);
  }

  /** The stored row of an OIDC session, written now if it has none (for what must be kept with it). */
  async stored(session: ApiSession): Promise<ApiSession> {
    const found = this.sessions.get(session.id);
    if (found) return found;
    return this.sessions.record(session);
  }

  private admit(claims: VerifiedClaims): SessionCheck {
    const identity = this.store.table<Identity>(tables.identities).get(claims.sub);
    if (!identity) return { ok: false, error: 'invalid', reason: `identity ${claims.sub} no longer exists` };
    if (isIdentityDisabled(identity, this.clock.now())) return { ok: false, error: 'invalid', reason: `identity ${identity.id} is disabled` };
    const policy = this.policies.forIdentity(identity);
    if (claims.z_ap !== undefined && claims.z_ap !== policy.id) return { ok: false, error: 'invalid', reason: `identity ${identity.id} has another auth policy since the login` };
    if (Date.parse(policy.updatedAt) > claims.auth_time * 1000 + 999) return { ok: false, error: 'invalid', reason: `auth policy ${policy.id} changed after the login` };
    const revoked = this.revokedBy(claims);
    if (revoked) return { ok: false, error: 'invalid', reason: revoked };
    const stored = this.sessions.get(claims.z_asid);
    if (stored && stored.identityId !== identity.id) return { ok: false, error: 'invalid', reason: 'the API session belongs to another identity' };
    return { ok: true, session: stored ?? this.virtualSession(claims), identity, claims };
  }

  private revokedBy(claims: VerifiedClaims): string | undefined {
    if (this.revocations.isRevoked('JTI', claims.jti)) return `token ${claims.jti} was revoked`;
    if (this.revocations.isRevoked('API_SESSION', claims.z_asid)) return `API session ${claims.z_asid} was revoked`;
    const identityRevocation = this.store.table<Revocation>(revocationTables.revocations).get(claims.sub);
    // An identity revocation refuses every token issued before it; a later login is not affected.
    if (identityRevocation?.type === 'IDENTITY' && Date.parse(identityRevocation.expiresAt) > this.clock.now() && Date.parse(identityRevocation.updatedAt) >= claims.iat * 1000) {
      return `identity ${claims.sub} was revoked`;
    }
    return undefined;
  }

  /** The API session a token stands for, as the rest of the controller sees sessions; never stored by itself. */
  private virtualSession(claims: VerifiedClaims): ApiSession {
    const startedAt = isoTime(claims.auth_time * 1000);
    return {
      id: claims.z_asid,
      createdAt: startedAt,
      updatedAt: startedAt,
      tags: {},
      tokenHash: oidcTokenHashPrefix + claims.z_asid,
      identityId: claims.sub,
      authenticatorId: claims.z_authid,
      authMethod: claims.amr[0] ?? 'oidc',
      ipAddress: claims.z_ra,
      configTypes: [...claims.z_ct],
      authQueries: [],
      isMfaRequired: claims.z_mfa === true,
      isMfaComplete: claims.z_mfa === true,
      mfaCompletedAt: claims.z_mfa === true ? startedAt : null,
      lastActivityAt: isoTime(this.clock.now()),
    };
  }
}

/** The tokenHash of a new OIDC session's row. */
export function oidcTokenHash(apiSessionId: string): string {
  return oidcTokenHashPrefix + apiSessionId;
}
