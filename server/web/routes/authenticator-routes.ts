// Management API: /authenticators (password authenticators), and the client's own under /current-identity. A
// password change with the current password goes through the login throttle like a login: it is a guess too.
import type { ApiRouter } from '../api-router.ts';
import type { Middleware } from 'koa';
import type { EdgeServices } from '../../edge/edge-services.ts';
import { authenticatorView } from '../views/authenticator-view.ts';
import type { Authenticator } from '../../model/entities.ts';
import { EdgeError } from '../../edge/edge-error.ts';
import { bodyValidator, schemaParts } from '../body-schema.ts';
import type { ApiContext, RequestState } from '../koa-state.ts';
import { authenticatorCatalogue } from './catalogues.ts';
import { sendCreated, sendDetail, sendEmpty, sendList, type RouteKit } from './route-kit.ts';
import { abandonedSignal, clientAddress } from '../request-abandoned.ts';

const username = { type: 'string', minLength: 4, maxLength: 100 };
const password = { type: 'string', minLength: 5, maxLength: 100 };

interface CreateBody {
  method: 'updb' | 'cert';
  identityId: string;
  username?: string;
  password?: string;
  certPem?: string;
  tags?: Record<string, unknown> | null;
}
interface UpdateBody {
  username?: string;
  password?: string;
  currentPassword?: string;
  tags?: Record<string, unknown> | null;
}

const createBody = bodyValidator<CreateBody>({
  type: 'object',
  required: ['method', 'identityId'],
  properties: { method: { type: 'string', enum: ['updb', 'cert'] }, identityId: { type: 'string', minLength: 1 }, username, password, certPem: { type: 'string' }, tags: schemaParts.tags },
});
const putBody = bodyValidator<UpdateBody>({ type: 'object', required: ['username', 'password'], properties: { username, password, tags: schemaParts.tags } });
const patchBody = bodyValidator<UpdateBody>({ type: 'object', properties: { username, password, tags: schemaParts.tags } });
const ownPutBody = bodyValidator<UpdateBody>({ type: 'object', required: ['username', 'password', 'currentPassword'], properties: { username, password, currentPassword: { type: 'string' }, tags: schemaParts.tags } });
const ownPatchBody = bodyValidator<UpdateBody>({ type: 'object', required: ['currentPassword'], properties: { username, password, currentPassword: { type: 'string' }, tags: schemaParts.tags } });

export function authenticatorRoutes(router: ApiRouter, services: EdgeServices, kit: RouteKit, admin: Middleware<RequestState>): void {
  const { authenticators, identities } = services;
  const view = (row: Authenticator) => authenticatorView(row, identities.find(row.identityId));

  router.get('/authenticators', admin, (ctx) => sendList(ctx, authenticators.list(), authenticatorCatalogue, view));
  router.post('/authenticators', admin, async (ctx) => {
    const body = await kit.validBody(ctx, createBody);
    if (body.method === 'cert') {
      if (body.certPem === undefined) throw EdgeError.validation('certPem', 'certPem in body is required');
      const { id } = await authenticators.createCert({ identityId: body.identityId, certPem: body.certPem, tags: body.tags ?? null });
      return sendCreated(ctx, id, 'authenticators');
    }
    if (body.username === undefined) throw EdgeError.validation('username', 'username in body is required');
    if (body.password === undefined) throw EdgeError.validation('password', 'password in body is required');
    const { id } = await authenticators.createUpdb({ identityId: body.identityId, username: body.username, password: body.password, tags: body.tags ?? null });
    sendCreated(ctx, id, 'authenticators');
  });
  router.get('/authenticators/:id', admin, (ctx) => sendDetail(ctx, view(authenticators.get(ctx.params.id!))));
  router.put('/authenticators/:id', admin, async (ctx) => {
    authenticators.get(ctx.params.id!);
    await authenticators.update(ctx.params.id!, await kit.validBody(ctx, putBody), { requireCurrentPassword: false });
    sendEmpty(ctx);
  });
  router.patch('/authenticators/:id', admin, async (ctx) => {
    authenticators.get(ctx.params.id!);
    await authenticators.update(ctx.params.id!, await kit.validBody(ctx, patchBody, { optional: true }), { requireCurrentPassword: false });
    sendEmpty(ctx);
  });
  router.delete('/authenticators/:id', admin, async (ctx) => {
    await authenticators.delete(ctx.params.id!);
    sendEmpty(ctx);
  });
}

/** /current-identity/authenticators: an identity sees its own and changes its password with the current one. */
export function ownAuthenticatorRoutes(router: ApiRouter, services: EdgeServices, kit: RouteKit, full: Middleware<RequestState>): void {
  const { authenticators } = services;
  const own = (ctx: ApiContext): Authenticator => {
    const authenticator = authenticators.list().find((row) => row.id === ctx.params.id && row.identityId === ctx.state.identity!.id);
    if (!authenticator) throw EdgeError.notFound('authenticator', ctx.params.id ?? '');
    return authenticator;
  };
  router.get('/current-identity/authenticators', full, (ctx) =>
    sendList(ctx, authenticators.forIdentity(ctx.state.identity!.id), authenticatorCatalogue, (row) => authenticatorView(row, ctx.state.identity)),
  );
  router.get('/current-identity/authenticators/:id', full, (ctx) => sendDetail(ctx, authenticatorView(own(ctx), ctx.state.identity)));
  /** Charged to the client's address and the username whose password is guessed, as a login is. */
  const changeOwn = async (ctx: ApiContext, authenticator: Authenticator, body: UpdateBody): Promise<void> => {
    const user = authenticator.method === 'updb' ? `username:${authenticator.username}` : undefined;
    await services.loginThrottle.attempt({ address: clientAddress(ctx), ...(user ? { user } : {}) }, () =>
      authenticators.update(authenticator.id, body, { requireCurrentPassword: true, signal: abandonedSignal(ctx) }),
    );
  };
  router.put('/current-identity/authenticators/:id', full, async (ctx) => {
    const authenticator = own(ctx);
    await changeOwn(ctx, authenticator, await kit.validBody(ctx, ownPutBody));
    sendEmpty(ctx);
  });
  router.patch('/current-identity/authenticators/:id', full, async (ctx) => {
    const authenticator = own(ctx);
    await changeOwn(ctx, authenticator, await kit.validBody(ctx, ownPatchBody));
    sendEmpty(ctx);
  });
}
