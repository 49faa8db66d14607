// Routes both Edge APIs share: authenticate, current-api-session and current-identity.
import type { RouteTable } from '../route-table.ts';
import type { EdgeServices } from '../../edge/edge-services.ts';
import { apiSessionView } from '../../edge/views/api-session-view.ts';
import { identityView } from '../../edge/views/identity-view.ts';
import { ApiError } from '../api-error.ts';
import { bodyValidator, schemaParts } from '../body-schema.ts';
import type { ApiContext, RequestState } from '../koa-state.ts';
import { setExpiryHeaders, type Access } from '../session-guard.ts';
import { requireSession, sendDetail, sendEmpty, type RouteKit } from './route-kit.ts';
import type { Middleware } from 'koa';

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

const knownMethods = ['password', 'cert', 'ext-jwt'];

export function authenticationRoutes(router: RouteTable, services: EdgeServices, kit: RouteKit, guard: (access: Access) => Middleware<RequestState>): void {
  const { sessions, identities } = services;

  const sessionDetail = (ctx: ApiContext, token?: string) => {
    const session = requireSession(ctx);
    const now = services.clock.now();
    return apiSessionView(session, identities.find(session.identityId), { now, lastActivityMs: sessions.lastActivityMs(session), expiresAtMs: sessions.expiresAtMs(session) }, token);
  };

  router.post('/authenticate', async (ctx) => {
    const method = typeof ctx.query.method === 'string' ? ctx.query.method : '';
    if (!knownMethods.includes(method)) {
      throw new ApiError('INVALID_AUTH_METHOD', { field: 'method', reason: `method must be one of ${knownMethods.join(', ')}`, value: method });
    }
    if (method !== 'password') {
      throw new ApiError('INVALID_AUTH_METHOD', { field: 'method', reason: `authentication method ${method} is not enabled on this controller`, value: method });
    }
    const body = await kit.validBody(ctx, passwordBody);
    const primary = await services.passwordLogin.authenticate(body.username, body.password);
    const { session, token } = await sessions.create({
      identity: primary.identity,
      authenticatorId: primary.authenticator.id,
      authMethod: primary.method,
      ipAddress: ctx.request.ip.replace(/^::ffff:/, ''),
      configTypes: body.configTypes ?? [],
      authQueries: [],
      isMfaRequired: false,
    });
    ctx.state.session = session;
    ctx.set('zt-session', token);
    setExpiryHeaders(ctx, sessions);
    sendDetail(ctx, sessionDetail(ctx, token));
  });

  router.get('/current-api-session', guard('partial'), (ctx) => sendDetail(ctx, sessionDetail(ctx, ctx.state.token)));

  router.delete('/current-api-session', guard('partial'), async (ctx) => {
    await sessions.end([requireSession(ctx).id], 'logout');
    sendEmpty(ctx);
  });

  router.get('/current-identity', guard('full'), (ctx) => {
    const identity = ctx.state.identity!;
    ctx.status = 200;
    ctx.body = {
      data: identityView(identity, {
        authenticators: services.authenticators.forIdentity(identity.id),
        hasApiSession: true,
        now: services.clock.now(),
      }),
      meta: {},
    };
  });

}
