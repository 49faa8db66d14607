// The login steps of an OIDC authorization request, as OpenZiti's controller serves them under /oidc/login: a primary
// login (password, cert over mutual TLS, or an external JWT) for the request `id` names, then the secondary factors
// its auth policy asks for (TOTP, enrolled on the spot if need be; an external JWT sent alongside). Each answer is
// what OpenZiti's clients read: 200 with `authQueries` (and `totp-required`) while factors are outstanding, 302 to
// the callback once the login is whole. The same throttles, lockouts and events as `/authenticate` apply.
import type { EdgeServices } from '../../edge/edge-services.ts';
import { EdgeError } from '../../edge/edge-error.ts';
import type { AuthQuery, Identity } from '../../model/entities.ts';
import type { AuthRequest } from '../../oidc/auth-requests.ts';
import { loginComplete } from '../../oidc/login-claims.ts';
import { bearerTokens } from '../../auth/ext-jwt/bearer-tokens.ts';
import { extJwtChallenge } from '../../edge/login/ext-jwt-login.ts';
import { httpStatusOf, clientMessageOf, responseHeadersOf } from '../api-error.ts';
import type { ApiRouter } from '../api-router.ts';
import type { ApiContext } from '../koa-state.ts';
import { clientAddress } from '../request-abandoned.ts';
import { readOidcParams, type OidcParams } from './oidc-params.ts';
import { runPrimaryLogin, type PrimaryMethod } from './primary-login.ts';
import { mfaView } from '../views/mfa-view.ts';
import { passwordPage, totpPage, wantsHtml } from './oidc-login-pages.ts';

/** The TOTP query of an OIDC login (OpenZiti's shape: its own type id and URL). */
function totpQuery(isTotpEnrolled: boolean): AuthQuery & { isTotpEnrolled: boolean } {
  return { typeId: 'TOTP', provider: 'ziti', format: 'numeric', httpMethod: 'POST', httpUrl: './oidc/login/totp', minLength: 6, maxLength: 8, isTotpEnrolled };
}

const methodOfPath: Readonly<Record<string, PrimaryMethod>> = { password: 'password', username: 'password', cert: 'cert', 'ext-jwt': 'ext-jwt' };

/** A login step's refusal: OpenZiti's bare `{code, message}` (no envelope), with the error's status and headers. */
function sendLoginError(ctx: ApiContext, status: number, code: string, message: string, headers: Record<string, string> = {}): void {
  ctx.status = status;
  for (const [name, value] of Object.entries(headers)) ctx.set(name, value);
  ctx.type = 'application/json';
  ctx.body = JSON.stringify({ code, message });
}

/** What a step learned of its request before it failed: the id a re-rendered page needs. */
interface StepState {
  requestId?: string;
}

/** A browser's form gets its page again with the error; anything else OpenZiti's JSON error. */
function loginStep(handler: (ctx: ApiContext, state: StepState) => Promise<void>, htmlPage?: (authRequestId: string, error: string) => string) {
  return async (ctx: ApiContext) => {
    const state: StepState = {};
    try {
      await handler(ctx, state);
    } catch (thrown) {
      if (!(thrown instanceof EdgeError)) throw thrown;
      const message = thrown.message || clientMessageOf(thrown);
      if (htmlPage && state.requestId && wantsHtml(ctx.get('accept'))) {
        ctx.status = httpStatusOf(thrown);
        ctx.type = 'text/html';
        ctx.body = htmlPage(state.requestId, thrown.code === 'INVALID_AUTH' ? 'The username or password is not right.' : message);
        return;
      }
      sendLoginError(ctx, httpStatusOf(thrown), thrown.code, message, responseHeadersOf(thrown));
    }
  };
}

const unknownRequest = () => new EdgeError('UNAUTHORIZED', { code: 'UNAUTHORIZED', message: 'the authentication request was not found or has expired' });

export function oidcLoginRoutes(router: ApiRouter, services: EdgeServices, maxBodyBytes: number): void {
  const { oidc } = services;

  /** The request a step names: `id` in the body, else `authRequestID` or `id` in the query. */
  const requestOf = (params: OidcParams): AuthRequest => {
    const id = params.get('id', 64) || params.get('authRequestID', 64) || '';
    const request = oidc.requests.get(id);
    if (!request) throw unknownRequest();
    return request;
  };

  const callbackUrl = (request: AuthRequest) => `${oidc.issuer}/authorize/callback?id=${request.id}`;

  /** Where a step leaves the login: on to the callback when whole, else the factors still owed. */
  const answer = (ctx: ApiContext, request: AuthRequest) => {
    if (loginComplete(request)) {
      ctx.status = 302;
      ctx.set('Location', callbackUrl(request));
      ctx.body = '';
      return;
    }
    sendQueries(ctx, request);
  };

  const sendQueries = (ctx: ApiContext, request: AuthRequest) => {
    const queries = request.login?.authQueries ?? [];
    if (queries.some((query) => query.typeId === 'TOTP') && wantsHtml(ctx.get('accept'))) {
      ctx.set('totp-required', 'true');
      ctx.set('auth-request-id', request.id);
      ctx.status = 200;
      ctx.type = 'text/html';
      ctx.body = totpPage(request.id);
      return;
    }
    if (queries.some((query) => query.typeId === 'TOTP')) ctx.set('totp-required', 'true');
    ctx.set('auth-request-id', request.id);
    ctx.status = 200;
    ctx.type = 'application/json';
    ctx.body = JSON.stringify({ authQueries: queries.length > 0 ? queries : null });
  };

  const identityOf = (request: AuthRequest): Identity => {
    const login = request.login;
    const identity = login ? services.identities.find(login.primary.identity.id) : undefined;
    if (!login || !identity) throw new EdgeError('UNAUTHORIZED', { code: 'UNAUTHORIZED', message: 'the authentication request has no primary login yet' });
    return identity;
  };

  const primaryStep = loginStep(async (ctx, state) => {
    const method = methodOfPath[ctx.path.slice(ctx.path.lastIndexOf('/') + 1)]!;
    const params = await readOidcParams(ctx, maxBodyBytes, 'form-or-json');
    const request = requestOf(params);
    state.requestId = request.id;
    ctx.set('auth-request-id', request.id);
    const remoteAddress = clientAddress(ctx);
    const credentials = method === 'password' ? { username: params.get('username', 100) ?? '', password: params.get('password', 100) ?? '' } : undefined;
    const login = await runPrimaryLogin(services, ctx, method, remoteAddress, credentials);
    const policy = services.authPolicies.forIdentity(login.identity);
    const mfaEnrolled = services.mfa.isEnrolled(login.identity.id);
    const amr: string[] = [login.method];
    const queries: AuthQuery[] = [];
    if (mfaEnrolled || policy.secondary.requireTotp) queries.push(totpQuery(mfaEnrolled));
    const signerId = policy.secondary.requireExtJwtSigner;
    if (signerId !== null) {
      const signer = services.signers.find(signerId);
      // The secondary JWT rides along with the login (a second Bearer after a primary ext-jwt one).
      const check = await services.extJwtLogin.checkSecondary(bearerTokens(ctx.req.headersDistinct.authorization), signerId, login.identity);
      if (check.ok) amr.push(`ejs:${signerId}`);
      else {
        queries.push({ typeId: 'EXT-JWT', provider: 'url', httpUrl: signer?.externalAuthUrl ?? '', clientId: signer?.clientId ?? '', scopes: [...(signer?.scopes ?? [])], id: signerId, issuer: signer?.issuer ?? '' });
        if (signer) ctx.set('WWW-Authenticate', extJwtChallenge('openziti-secondary-ext-jwt', check.reason, [signer]));
      }
    }
    const configTypes = params.all('configTypes').length > 0 ? services.overlay.configs.resolveTypeIds(params.all('configTypes').slice(0, 100)) : request.configTypes;
    request.login = { primary: login, configTypes, authPolicyId: policy.id, atMs: services.clock.now(), amr, authQueries: queries };
    services.reportAuthentication({ method, success: true, reason: '', identityId: login.identity.id, authenticatorId: login.authenticatorId, authPolicyId: policy.id, remoteAddress });
    answer(ctx, request);
  }, passwordPage);
  for (const path of ['password', 'username', 'cert', 'ext-jwt']) router.post(`/login/${path}`, primaryStep);

  // A browser (or OpenZiti's Go SDK) follows the authorization redirect here; the request id comes back as a header.
  for (const path of ['password', 'username', 'cert', 'ext-jwt']) {
    router.get(`/login/${path}`, (ctx) => {
      const id = typeof ctx.query.authRequestID === 'string' ? ctx.query.authRequestID : '';
      ctx.set('auth-request-id', id);
      // A browser gets the sign-in form for a request this controller holds.
      if ((path === 'password' || path === 'username') && wantsHtml(ctx.get('accept')) && oidc.requests.get(id)) {
        ctx.status = 200;
        ctx.type = 'text/html';
        ctx.body = passwordPage(id);
        return;
      }
      ctx.status = 200;
      ctx.type = 'text/plain';
      ctx.body = 'please POST to this URL';
    });
  }

  router.get(
    '/login/auth-queries',
    loginStep(async (ctx) => {
      const request = requestOf(await readOidcParams(ctx, maxBodyBytes, 'form-or-json'));
      sendQueries(ctx, request);
    }),
  );

  /** Answers the TOTP query (a TOTP or recovery code); wrong codes count toward the identity's lockout. */
  router.post(
    '/login/totp',
    loginStep(async (ctx, state) => {
      const params = await readOidcParams(ctx, maxBodyBytes, 'form-or-json');
      const request = requestOf(params);
      state.requestId = request.id;
      const identity = identityOf(request);
      const code = params.get('code', 13) ?? '';
      try {
        await services.mfa.authenticate(identity, { id: request.apiSessionId }, code);
      } catch (error) {
        if (error instanceof EdgeError && (error.code === 'MFA_INVALID_TOKEN' || error.code === 'MFA_NOT_ENROLLED')) {
          if (wantsHtml(ctx.get('accept'))) {
            ctx.status = 400;
            ctx.type = 'text/html';
            ctx.body = totpPage(request.id, 'That code is not right.');
            return;
          }
          return sendLoginError(ctx, 400, 'INVALID TOTP CODE', 'an invalid TOTP code was supplied');
        }
        throw error;
      }
      satisfyTotp(request);
      answer(ctx, request);
    }, totpPage),
  );

  /** Starts a TOTP enrollment mid-login (an auth policy that requires TOTP of an identity without one). */
  router.post(
    '/login/totp/enroll',
    loginStep(async (ctx) => {
      const request = requestOf(await readOidcParams(ctx, maxBodyBytes, 'form-or-json'));
      const detail = await services.mfa.start(identityOf(request));
      ctx.status = 201;
      ctx.type = 'application/json';
      ctx.body = JSON.stringify(mfaView(detail));
    }),
  );

  router.delete(
    '/login/totp/enroll',
    loginStep(async (ctx) => {
      const params = await readOidcParams(ctx, maxBodyBytes, 'form-or-json');
      const request = requestOf(params);
      await services.mfa.remove(identityOf(request), params.get('code', 13) ?? '');
      ctx.status = 200;
      ctx.type = 'application/json';
      ctx.body = '{}';
    }),
  );

  router.post(
    '/login/totp/enroll/verify',
    loginStep(async (ctx) => {
      const params = await readOidcParams(ctx, maxBodyBytes, 'form-or-json');
      const request = requestOf(params);
      await services.mfa.verify(identityOf(request), { id: request.apiSessionId }, params.get('code', 13) ?? '');
      satisfyTotp(request);
      answer(ctx, request);
    }),
  );
}

function satisfyTotp(request: AuthRequest): void {
  const login = request.login;
  if (!login) return;
  login.authQueries = login.authQueries.filter((query) => query.typeId !== 'TOTP');
  if (!login.amr.includes('totp')) login.amr.push('totp');
}
