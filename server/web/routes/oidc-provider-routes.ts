// The OpenID provider's own endpoints under /oidc (OpenZiti's paths): discovery, the authorization endpoint (GET or
// POST, parameters in the query or a form), the callback a completed login is sent to, the token endpoint
// (authorization code with PKCE S256, refresh token, token exchange), the JWKS, revocation, end of session and
// userinfo. Errors here are OAuth's `{error, error_description}` (RFC 6749 5.2), not the Edge API envelope; a
// client that cannot be trusted with a redirect gets its error directly, any other authorization error goes back to
// the client's redirect URI.
import type { TLSSocket } from 'node:tls';
import type { EdgeServices } from '../../edge/edge-services.ts';
import { EdgeError } from '../../edge/edge-error.ts';
import type { Identity } from '../../model/entities.ts';
import { tables } from '../../model/entities.ts';
import { isIdentityDisabled } from '../../auth/identity-state.ts';
import { TooManyAuthRequests, type AuthRequest } from '../../oidc/auth-requests.ts';
import { loginClaims, loginComplete } from '../../oidc/login-claims.ts';
import { matchesRedirectUri } from '../../oidc/oidc-clients.ts';
import { SigningKeyUnavailable, type IssuedTokens } from '../../oidc/oidc-tokens.ts';
import { signingAlgorithm } from '../../oidc/oidc-signing-keys.ts';
import { decodeJws, signatureValid } from '../../oidc/compact-jws.ts';
import { ApiRouter } from '../api-router.ts';
import { clientMessageOf, httpStatusOf } from '../api-error.ts';
import type { ApiContext } from '../koa-state.ts';
import { clientAddress } from '../request-abandoned.ts';
import { readOidcParams, type OidcParams } from './oidc-params.ts';
import { bearerTokens } from '../../auth/ext-jwt/bearer-tokens.ts';

export const oidcPrefix = '/oidc';

/** How long an authorization request waits for a starting controller's first signing key. */
const keyWaitMs = 3_000;

const tokenExchangeGrant = 'urn:ietf:params:oauth:grant-type:token-exchange';
const accessTokenType = 'urn:ietf:params:oauth:token-type:access_token';
const refreshTokenType = 'urn:ietf:params:oauth:token-type:refresh_token';

/** Login URLs by the `method` an authorization request may name (OpenZiti's extension). */
const loginPaths = { password: 'username', cert: 'cert', 'ext-jwt': 'ext-jwt' } as const;

/** An OAuth error answered as JSON (RFC 6749 5.2). */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
  }
}

/** RFC 6749 2.3.1 form-encodes the Basic credentials; a malformed escape is no client id. */
function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return '';
  }
}

/** What was wrong with the request, in words: the field and reason where the error names them. */
function requestProblem(error: EdgeError): string {
  const cause = error.cause as { field?: string; reason?: string; message?: string } | undefined;
  if (cause?.field && cause.reason) return `${cause.field}: ${cause.reason}`;
  return cause?.message ?? clientMessageOf(error);
}

function sendOAuthError(ctx: ApiContext, error: OAuthError): void {
  ctx.status = error.status;
  ctx.set('Cache-Control', 'no-store');
  ctx.type = 'application/json';
  ctx.body = JSON.stringify({ error: error.error, error_description: error.description });
}

/** Runs an endpoint, answering OAuth errors (and the API's own refusals, as invalid_request) in OAuth's shape. */
function oauth(handler: (ctx: ApiContext) => Promise<void> | void) {
  return async (ctx: ApiContext) => {
    try {
      await handler(ctx);
    } catch (thrown) {
      if (thrown instanceof OAuthError) return sendOAuthError(ctx, thrown);
      if (thrown instanceof SigningKeyUnavailable) return sendOAuthError(ctx, new OAuthError('temporarily_unavailable', thrown.message, 503));
      // The request could not be read (a parameter too long, a body of the wrong type or size): the client's fault.
      if (thrown instanceof EdgeError && httpStatusOf(thrown) >= 400 && httpStatusOf(thrown) < 500) {
        return sendOAuthError(ctx, new OAuthError('invalid_request', requestProblem(thrown), httpStatusOf(thrown) === 401 ? 400 : httpStatusOf(thrown)));
      }
      throw thrown;
    }
  };
}

function sendJson(ctx: ApiContext, status: number, value: unknown, cache = 'no-store'): void {
  ctx.status = status;
  ctx.set('Cache-Control', cache);
  ctx.type = 'application/json';
  ctx.body = JSON.stringify(value);
}

/** The OpenID Provider Metadata of this controller (OpenID Connect Discovery 1.0), with OpenZiti's login URLs. */
export function discoveryDocument(issuer: string) {
  return {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    userinfo_endpoint: `${issuer}/userinfo`,
    revocation_endpoint: `${issuer}/revoke`,
    end_session_endpoint: `${issuer}/end_session`,
    jwks_uri: `${issuer}/keys`,
    scopes_supported: ['openid', 'offline_access'],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token', tokenExchangeGrant],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [signingAlgorithm],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    code_challenge_methods_supported: ['S256'],
    claims_supported: ['sub', 'aud', 'exp', 'iat', 'iss', 'auth_time', 'nonce', 'amr', 'azp', 'z_asid', 'z_ia', 'z_eid', 'z_ct'],
    request_parameter_supported: false,
    ui_locales_supported: ['en'],
    openziti_endpoints: {
      password: `${issuer}/login/password`,
      cert: `${issuer}/login/cert`,
      ext_jwt: `${issuer}/login/ext-jwt`,
      totp: `${issuer}/login/totp`,
      totp_enroll: `${issuer}/login/totp/enroll`,
      totp_enroll_verify: `${issuer}/login/totp/enroll/verify`,
      auth_queries: `${issuer}/login/auth-queries`,
    },
  };
}

/** `uri` with `params` added to its query, `code` last (OpenZiti's C SDK reads the code to the end of the URL). */
export function withQuery(uri: string, params: ReadonlyArray<readonly [string, string | undefined]>): string {
  const url = new URL(uri);
  const present = params.filter((entry): entry is readonly [string, string] => entry[1] !== undefined);
  const ordered = [...present.filter(([key]) => key !== 'code'), ...present.filter(([key]) => key === 'code')];
  for (const [key, value] of ordered) url.searchParams.append(key, value);
  return url.toString();
}

export function oidcProviderRoutes(services: EdgeServices, maxBodyBytes: number): ApiRouter {
  const { oidc } = services;
  const router = new ApiRouter(oidcPrefix);
  // An operator's extra redirect URIs (`/controller-settings`: this controller's own, else the global ones).
  const settings = () => services.controllerSettings.effective(oidc.controllerId).oidc;

  const discovery = (ctx: ApiContext) => sendJson(ctx, 200, discoveryDocument(oidc.issuer), 'public, max-age=300');
  router.get('/.well-known/openid-configuration', discovery);

  const authorize = oauth(async (ctx) => {
    const params = await readOidcParams(ctx, maxBodyBytes, 'form');
    const clientId = params.get('client_id', 256) ?? '';
    const client = oidc.clients.get(clientId);
    if (!client) throw new OAuthError('invalid_client', `unknown client_id ${JSON.stringify(clientId.slice(0, 64))}`);
    const redirectUri = params.get('redirect_uri', 2048) ?? '';
    if (!matchesRedirectUri([...client.redirectUris, ...settings().redirectUris], redirectUri)) throw new OAuthError('invalid_request', 'redirect_uri is not one of the client\'s redirect URIs');
    const state = params.get('state', 1024);
    const fail = (error: string, description: string) => {
      ctx.status = 302;
      ctx.redirect(withQuery(redirectUri, [['error', error], ['error_description', description], ['state', state]]));
    };
    if (params.get('response_type') !== 'code') return fail('unsupported_response_type', 'only response_type=code is supported');
    const scopes = (params.get('scope', 1024) ?? '').split(' ').filter((scope) => scope !== '');
    if (!scopes.includes('openid')) return fail('invalid_scope', 'the scope must include openid');
    const codeChallenge = params.get('code_challenge', 256) ?? '';
    if (params.get('code_challenge_method') !== 'S256' || !/^[A-Za-z0-9_-]{43}$/.test(codeChallenge)) return fail('invalid_request', 'PKCE is required: code_challenge with code_challenge_method=S256');
    if (params.get('prompt') === 'none') return fail('login_required', 'a login is required');
    // No login should be spent on a controller that could not sign its tokens yet: a controller that just started
    // publishes its key now (a few seconds at most) rather than turn the client away.
    if (!oidc.tokens.ready) await Promise.race([oidc.keys.rotate().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, keyWaitMs).unref())]);
    if (!oidc.tokens.ready) return fail('temporarily_unavailable', 'this controller has no committed signing key yet: retry shortly or use another controller');
    const method = params.get('method');
    const nonce = params.get('nonce', 1024);
    let request: AuthRequest;
    try {
      request = oidc.requests.create({
        clientId,
        redirectUri,
        scopes: scopes.filter((scope) => scope === 'openid' || scope === 'offline_access'),
        ...(state !== undefined ? { state } : {}),
        ...(nonce !== undefined ? { nonce } : {}),
        codeChallenge,
        configTypes: services.overlay.configs.resolveTypeIds(params.all('configTypes').slice(0, 100)),
        remoteAddress: clientAddress(ctx),
      });
    } catch (error) {
      if (error instanceof TooManyAuthRequests) return fail('temporarily_unavailable', error.message);
      throw error;
    }
    const hasCertificate = (ctx.req.socket as TLSSocket).getPeerCertificate?.()?.raw !== undefined;
    const path = method && method in loginPaths ? loginPaths[method as keyof typeof loginPaths] : hasCertificate ? 'cert' : 'username';
    ctx.status = 302;
    ctx.set('Location', `${oidcPrefix}/login/${path}?authRequestID=${request.id}`);
    ctx.body = '';
  });
  router.get('/authorize', authorize);
  router.post('/authorize', authorize);

  router.get(
    '/authorize/callback',
    oauth((ctx) => {
      const id = typeof ctx.query.id === 'string' ? ctx.query.id : '';
      const request = oidc.requests.get(id);
      if (!request) throw new OAuthError('invalid_request', 'the authorization request was not found or has expired');
      if (!loginComplete(request)) {
        ctx.redirect(withQuery(request.redirectUri, [['error', 'interaction_required'], ['error_description', 'the login is not complete'], ['state', request.state]]));
        return;
      }
      const code = oidc.requests.issueCode(request);
      ctx.status = 302;
      ctx.set('Location', withQuery(request.redirectUri, [['state', request.state], ['code', code]]));
      ctx.body = '';
    }),
  );

  /** A client authenticates with its id alone (public clients, PKCE), in the form or as HTTP Basic with no secret. */
  const tokenClient = (ctx: ApiContext, params: OidcParams): string => {
    let clientId = params.get('client_id', 256);
    const basic = /^Basic\s+(.+)$/i.exec(ctx.get('authorization'));
    if (basic) {
      const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
      const named = safeDecode(decoded.slice(0, decoded.indexOf(':') < 0 ? decoded.length : decoded.indexOf(':')));
      if (clientId !== undefined && clientId !== named) throw new OAuthError('invalid_client', 'client_id differs from the Basic credentials');
      clientId = named;
    }
    if (!clientId || !oidc.clients.has(clientId)) throw new OAuthError('invalid_client', 'client not found');
    return clientId;
  };

  const sendTokens = (ctx: ApiContext, tokens: IssuedTokens, scope: string, withRefresh: boolean) =>
    sendJson(ctx, 200, {
      access_token: tokens.accessToken,
      token_type: 'Bearer',
      expires_in: tokens.expiresIn,
      id_token: tokens.idToken,
      ...(withRefresh ? { refresh_token: tokens.refreshToken } : {}),
      scope,
    });

  /** The identity a login or a session names, if it may still log in. */
  const liveIdentity = (id: string): Identity => {
    const identity = services.store.table<Identity>(tables.identities).get(id);
    if (!identity || isIdentityDisabled(identity, services.clock.now())) throw new OAuthError('invalid_grant', 'the identity no longer exists or is disabled');
    return identity;
  };

  const token = oauth(async (ctx) => {
    const params = await readOidcParams(ctx, maxBodyBytes, 'form');
    const grantType = params.get('grant_type');
    if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required');
    const clientId = tokenClient(ctx, params);
    switch (grantType) {
      case 'authorization_code': {
        const redeemed = oidc.requests.redeem(params.get('code', 512) ?? '', clientId, params.get('redirect_uri', 2048), params.get('code_verifier', 256) ?? '');
        if (!redeemed.ok) {
          oidc.report({ remoteAddress: clientAddress(ctx), kind: 'refused', grant: grantType, reason: redeemed.reason });
          throw new OAuthError('invalid_grant', redeemed.reason);
        }
        const { request } = redeemed;
        if (!loginComplete(request)) throw new OAuthError('invalid_grant', 'the login is not complete');
        const identity = liveIdentity(request.login.primary.identity.id);
        const policy = services.authPolicies.forIdentity(identity);
        if (policy.id !== request.login.authPolicyId) throw new OAuthError('invalid_grant', 'the identity\'s auth policy changed during the login');
        const tokens = oidc.tokens.issue(loginClaims(request, request.login, identity, policy), request.nonce !== undefined ? { nonce: request.nonce } : {});
        oidc.report({ remoteAddress: clientAddress(ctx), kind: 'issued', grant: grantType, identityId: identity.id, apiSessionId: request.apiSessionId, method: request.login.primary.method });
        return sendTokens(ctx, tokens, request.scopes.join(' '), request.scopes.includes('offline_access'));
      }
      case 'refresh_token': {
        const check = oidc.sessions.checkRefreshToken(params.get('refresh_token', 8192) ?? '', clientId);
        if (!check.ok) {
          oidc.report({ remoteAddress: clientAddress(ctx), kind: 'refused', grant: grantType, reason: check.reason });
          throw new OAuthError('invalid_grant', check.error === 'expired' ? 'refresh token expired' : `refresh token refused: ${check.reason}`);
        }
        const granted = (check.claims.scope ?? 'openid offline_access').split(' ');
        const asked = (params.get('scope', 1024) ?? '').split(' ').filter((scope) => scope !== '');
        if (asked.some((scope) => !granted.includes(scope))) throw new OAuthError('invalid_scope', 'a refresh may not widen the scope');
        const tokens = oidc.sessions.refresh(check);
        oidc.report({ remoteAddress: clientAddress(ctx), kind: 'refreshed', grant: grantType, identityId: check.identity.id, apiSessionId: check.claims.z_asid });
        return sendTokens(ctx, tokens, granted.join(' '), true);
      }
      case tokenExchangeGrant: {
        const subjectType = params.get('subject_token_type');
        const subject = params.get('subject_token', 8192) ?? '';
        if (subjectType !== accessTokenType && subjectType !== refreshTokenType) throw new OAuthError('invalid_request', 'subject_token_type must be an access or refresh token type');
        const audiences = params.all('audience');
        if (audiences.some((audience) => !oidc.clients.has(audience))) throw new OAuthError('invalid_target', 'audience must be openziti or native');
        const check = subjectType === accessTokenType ? oidc.sessions.checkAccessToken(subject) : oidc.sessions.checkRefreshToken(subject, clientId);
        if (!check.ok) {
          oidc.report({ remoteAddress: clientAddress(ctx), kind: 'refused', grant: grantType, reason: check.reason });
          throw new OAuthError('invalid_grant', `subject_token refused: ${check.reason}`);
        }
        const tokens = oidc.sessions.refresh(check);
        oidc.report({ remoteAddress: clientAddress(ctx), kind: 'refreshed', grant: grantType, identityId: check.identity.id, apiSessionId: check.claims.z_asid });
        sendJson(ctx, 200, {
          access_token: tokens.accessToken,
          issued_token_type: accessTokenType,
          token_type: 'Bearer',
          expires_in: tokens.expiresIn,
          refresh_token: tokens.refreshToken,
          id_token: tokens.idToken,
        });
        return;
      }
      default:
        throw new OAuthError('unsupported_grant_type', `grant_type ${JSON.stringify(grantType.slice(0, 64))} is not supported`);
    }
  });
  router.post('/oauth/token', token);
  router.post('/token', token);

  router.get('/keys', (ctx) => sendJson(ctx, 200, oidc.keys.publishedJwks(), 'public, max-age=60'));

  /** RFC 7009: a refresh token ends its API session; an access token is revoked by its jti. Always 200. */
  router.post(
    '/revoke',
    oauth(async (ctx) => {
      const params = await readOidcParams(ctx, maxBodyBytes, 'form');
      tokenClient(ctx, params);
      const presented = params.get('token', 8192) ?? '';
      const refresh = oidc.tokens.verify(presented, 'r');
      if (refresh.ok) {
        await oidc.sessions.revoke(refresh.claims.z_asid);
        oidc.report({ remoteAddress: clientAddress(ctx), kind: 'revoked', grant: 'refresh_token', identityId: refresh.claims.sub, apiSessionId: refresh.claims.z_asid });
      } else {
        const access = oidc.tokens.verify(presented, 'a');
        if (access.ok) {
          await services.revocations.create({ id: access.claims.jti, type: 'JTI', tags: {} }, oidc.tokens.longestLifetimeMs);
          oidc.report({ remoteAddress: clientAddress(ctx), kind: 'revoked', grant: 'access_token', identityId: access.claims.sub, apiSessionId: access.claims.z_asid });
        }
      }
      sendJson(ctx, 200, {});
    }),
  );

  /** RP-initiated logout: the session the ID token names ends everywhere, then the client's logout page or ours. */
  const endSession = oauth(async (ctx) => {
    const params = await readOidcParams(ctx, maxBodyBytes, 'form');
    const hint = params.get('id_token_hint', 8192);
    const apiSessionId = hint ? idTokenSession(hint) : undefined;
    if (apiSessionId) {
      await oidc.sessions.revoke(apiSessionId);
      oidc.report({ remoteAddress: clientAddress(ctx), kind: 'revoked', grant: 'end_session', apiSessionId });
    }
    const target = params.get('post_logout_redirect_uri', 2048);
    const clientId = params.get('client_id', 256) ?? 'openziti';
    const client = oidc.clients.get(clientId);
    ctx.status = 302;
    if (target && client && matchesRedirectUri([...client.postLogoutRedirectUris, ...settings().postLogoutUris], target)) ctx.set('Location', withQuery(target, [['state', params.get('state', 1024)]]));
    else ctx.set('Location', `${oidcPrefix}/logged-out`);
    ctx.body = '';
  });
  router.get('/end_session', endSession);
  router.post('/end_session', endSession);

  /** The session an ID token names, when one of the published keys signed it (expired ones too: it is a hint). */
  const idTokenSession = (idToken: string): string | undefined => {
    const decoded = decodeJws(idToken);
    const kid = decoded?.header.kid;
    if (!decoded || typeof kid !== 'string') return undefined;
    const key = oidc.keys.verificationKey(kid);
    if (!key || decoded.header.alg !== key.algorithm || decoded.payload.iss !== key.issuer || !signatureValid(decoded, key.algorithm, key.publicKey)) return undefined;
    return typeof decoded.payload.z_asid === 'string' ? decoded.payload.z_asid : undefined;
  };

  router.get('/logged-out', (ctx) => {
    ctx.status = 200;
    ctx.type = 'text/plain';
    ctx.body = 'signed out successfully';
  });

  const userinfo = oauth((ctx) => {
    const presented = bearerTokens(ctx.req.headersDistinct.authorization)[0] ?? '';
    const check = oidc.sessions.checkAccessToken(presented);
    if (!check.ok) {
      ctx.set('WWW-Authenticate', `Bearer error="invalid_token" error_description="${check.error === 'expired' ? 'token expired' : 'token is invalid'}"`);
      throw new OAuthError('invalid_token', check.error === 'expired' ? 'token expired' : 'token is invalid', 401);
    }
    sendJson(ctx, 200, { sub: check.identity.id, name: check.identity.name, z_ia: check.identity.isAdmin, ...(check.identity.externalId ? { z_eid: check.identity.externalId } : {}) });
  });
  router.get('/userinfo', userinfo);
  router.post('/userinfo', userinfo);

  return router;
}
