// Routes both Edge APIs share: authenticate, current-api-session and current-identity. Every primary login goes
// through the login throttle (refusals per client address, and per username for passwords).
import type { ApiRouter } from '../api-router.ts';
import type { EdgeServices } from '../../edge/edge-services.ts';
import { apiSessionView } from '../views/api-session-view.ts';
import { identityView } from '../views/identity-view.ts';
import { EdgeError } from '../../edge/edge-error.ts';
import { bodyValidator, schemaParts } from '../body-schema.ts';
import type { ApiContext, RequestState } from '../koa-state.ts';
import { setExpiryHeaders, type Access } from '../session-guard.ts';
import { requireSession, sendDetail, sendEmpty, type RouteKit } from './route-kit.ts';
import { clientAddress } from '../request-abandoned.ts';
import type { Middleware } from 'koa';
import { extJwtChallenge } from '../../edge/login/ext-jwt-login.ts';
import type { PrimaryAuthentication } from '../../edge/login/password-login.ts';
import { authQueriesFor } from '../../edge/login/auth-queries.ts';
import { isOidcSession } from '../../oidc/oidc-sessions.ts';
import { loginRefused, runPrimaryLogin, type PrimaryMethod } from './primary-login.ts';

interface PasswordBody {
  username: string;
  password: string;
  configTypes?: string[] | null;
}

const passwordBody = bodyValidator<PasswordBody>({
  type: 'object',
  required: ['username', 'password'],
  properties: {
    username: { type: 'string', minLength: 4, maxLength: 100 },
    password: { type: 'string', minLength: 5, maxLength: 100 },
    configTypes: schemaParts.stringList,
    envInfo: { type: ['object', 'null'] },
    sdkInfo: { type: ['object', 'null'] },
  },
});

const optionalBody = bodyValidator<{ configTypes?: string[] | null }>({
  type: 'object',
  properties: { configTypes: schemaParts.stringList, envInfo: { type: ['object', 'null'] }, sdkInfo: { type: ['object', 'null'] } },
});

const knownMethods = ['password', 'cert', 'ext-jwt'];

export function authenticationRoutes(router: ApiRouter, services: EdgeServices, kit: RouteKit, guard: (access: Access) => Middleware<RequestState>): void {
  const { sessions, identities } = services;

  const sessionDetail = (ctx: ApiContext, token?: string) => {
    const session = requireSession(ctx);
    const now = services.clock.now();
    return apiSessionView(session, identities.find(session.identityId), { now, lastActivityMs: sessions.lastActivityMs(session), expiresAtMs: sessions.expiresAtMs(session) }, token);
  };

  const primary = async (ctx: ApiContext, method: PrimaryMethod, address: string): Promise<{ login: PrimaryAuthentication; configTypes: readonly string[] }> => {
    // A body that cannot be read is a refused login too (an authentication event naming the error).
    const refused = (error: unknown) => loginRefused(services, method, address, error);
    if (method === 'password') {
      const body = await kit.validBody(ctx, passwordBody).catch(refused);
      return { login: await runPrimaryLogin(services, ctx, method, address, body), configTypes: body.configTypes ?? [] };
    }
    const body = await kit.validBody(ctx, optionalBody, { optional: true }).catch(refused);
    return { login: await runPrimaryLogin(services, ctx, method, address), configTypes: body.configTypes ?? [] };
  };

  router.post('/authenticate', async (ctx) => {
    const method = typeof ctx.query.method === 'string' ? ctx.query.method : '';
    if (!knownMethods.includes(method)) {
      throw new EdgeError('INVALID_AUTH_METHOD', { field: 'method', reason: `method must be one of ${knownMethods.join(', ')}`, value: method });
    }
    const attemptMethod = method as PrimaryMethod;
    const remoteAddress = clientAddress(ctx);
    const { login, configTypes } = await primary(ctx, attemptMethod, remoteAddress);
    const policy = services.authPolicies.forIdentity(login.identity);
    const mfaEnrolled = services.mfa.isEnrolled(login.identity.id);
    const { queries, secondarySigner } = authQueriesFor(policy, services.signers, mfaEnrolled);
    const { session, token } = await sessions.create({
      identity: login.identity,
      authenticatorId: login.authenticatorId,
      authMethod: login.method,
      ipAddress: remoteAddress,
      // Kept as ids (or `all`), as the real controller keeps them; names it does not know are dropped.
      configTypes: services.overlay.configs.resolveTypeIds(configTypes),
      authQueries: queries,
      isMfaRequired: mfaEnrolled,
    });
    services.reportAuthentication({ method: attemptMethod, success: true, reason: '', identityId: login.identity.id, authenticatorId: login.authenticatorId, authPolicyId: policy.id, remoteAddress });
    ctx.state.session = session;
    ctx.set('zt-session', token);
    // The secondary challenge goes out with the session, so the client learns at once which JWT it owes.
    if (secondarySigner) ctx.set('WWW-Authenticate', extJwtChallenge('openziti-secondary-ext-jwt', 'missing', [secondarySigner]));
    setExpiryHeaders(ctx, sessions);
    sendDetail(ctx, sessionDetail(ctx, token));
  });

  router.get('/current-api-session', guard('partial'), (ctx) => sendDetail(ctx, sessionDetail(ctx, ctx.state.token)));

  router.delete('/current-api-session', guard('partial'), async (ctx) => {
    const session = requireSession(ctx);
    // An OIDC session's tokens live on any controller: logging out revokes them all (and ends its row, if any).
    if (isOidcSession(session)) {
      await services.oidc.sessions.revoke(session.id);
      services.oidc.report({ remoteAddress: clientAddress(ctx), kind: 'revoked', grant: 'logout', identityId: session.identityId, apiSessionId: session.id });
    } else await sessions.end([session.id], 'logout');
    sendEmpty(ctx);
  });

  router.get('/current-identity', guard('full'), (ctx) => {
    const identity = ctx.state.identity!;
    ctx.status = 200;
    ctx.body = {
      data: identityView(identity, {
        authenticators: services.authenticators.forIdentity(identity.id),
        authPolicyName: services.authPolicies.find(identity.authPolicyId)?.name ?? identity.authPolicyId,
        isMfaEnabled: services.mfa.isEnrolled(identity.id),
        hasApiSession: true,
        hasEdgeRouterConnection: services.edgeSessions.identityConnected(identity.id),
        now: services.clock.now(),
      }),
      meta: {},
    };
  });

}
