// TOTP on both Edge APIs: /authenticate/mfa answers a session's MFA query; /current-identity/mfa enrolls, verifies,
// cancels or removes, shows the QR code and reads or replaces recovery codes. Enrollment and the MFA answer work
// while partially authenticated (the spec's allowed list); recovery codes need a full session. Codes come in the
// body (`code`) or the `mfa-validation-code` header. Every route that takes a code goes through the login throttle
// (refusals per client address and per identity).
import type { Middleware } from 'koa';
import type { EdgeServices } from '../../edge/edge-services.ts';
import { mfaView } from '../views/mfa-view.ts';
import { link } from '../views/links.ts';
import { bodyValidator } from '../body-schema.ts';
import type { ApiContext, RequestState } from '../koa-state.ts';
import type { Access } from '../session-guard.ts';
import type { ApiRouter } from '../api-router.ts';
import { requireSession, sendDetail, sendEmpty, type RouteKit } from './route-kit.ts';
import { clientAddress } from '../request-abandoned.ts';

const requiredCode = bodyValidator<{ code: string }>({ type: 'object', required: ['code'], properties: { code: { type: 'string', maxLength: 100 } } });
const optionalCode = bodyValidator<{ code?: string }>({ type: 'object', properties: { code: { type: 'string', maxLength: 100 } } });

export function mfaRoutes(router: ApiRouter, services: EdgeServices, kit: RouteKit, guard: (access: Access) => Middleware<RequestState>): void {
  const { mfa } = services;
  const partial = guard('partial');
  const full = guard('full');
  const identityOf = (ctx: ApiContext) => ctx.state.identity!;
  /** The header wins when both are given; an absent code reads as empty. */
  const codeOf = async (ctx: ApiContext, required: boolean): Promise<string> => {
    const header = ctx.get('mfa-validation-code');
    const body = await kit.validBody(ctx, required && header === '' ? requiredCode : optionalCode, { optional: !required || header !== '' });
    return header !== '' ? header : (body.code ?? '');
  };
  /** A code check, refused at once (429) while this address or identity has too many wrong codes behind it. */
  const throttled = <T>(ctx: ApiContext, check: () => Promise<T>): Promise<T> =>
    services.loginThrottle.attempt({ address: clientAddress(ctx), user: `identity:${identityOf(ctx).id}` }, check);

  router.post('/authenticate/mfa', partial, async (ctx) => {
    const code = await codeOf(ctx, true);
    await throttled(ctx, () => mfa.authenticate(identityOf(ctx), requireSession(ctx), code));
    sendEmpty(ctx);
  });

  router.get('/current-identity/mfa', partial, (ctx) => sendDetail(ctx, mfaView(mfa.detail(identityOf(ctx)))));
  router.post('/current-identity/mfa', partial, async (ctx) => {
    await kit.validBody(ctx, optionalCode, { optional: true });
    const started = await mfa.start(identityOf(ctx));
    ctx.status = 201;
    ctx.body = {
      data: { ...mfaView(started), _links: { self: link('./current-identity/mfa'), verify: link('./current-identity/mfa/verify', 'POST'), qr: link('./current-identity/mfa/qr-code') } },
      meta: {},
    };
  });
  router.post('/current-identity/mfa/verify', partial, async (ctx) => {
    const code = await codeOf(ctx, true);
    await throttled(ctx, () => mfa.verify(identityOf(ctx), requireSession(ctx), code));
    sendEmpty(ctx);
  });
  router.delete('/current-identity/mfa', partial, async (ctx) => {
    const code = await codeOf(ctx, false);
    await throttled(ctx, () => mfa.remove(identityOf(ctx), code));
    sendEmpty(ctx);
  });
  router.get('/current-identity/mfa/qr-code', partial, async (ctx) => {
    const png = await mfa.qrCode(identityOf(ctx));
    ctx.status = 200;
    ctx.type = 'image/png';
    ctx.body = png;
  });
  router.get('/current-identity/mfa/recovery-codes', full, async (ctx) => {
    const code = await codeOf(ctx, false);
    const { mfa: row, recoveryCodes } = await throttled(ctx, () => mfa.readRecoveryCodes(identityOf(ctx), code));
    sendDetail(ctx, { id: row.id, createdAt: row.createdAt, updatedAt: row.updatedAt, tags: row.tags, _links: { self: link('./current-identity/mfa/recovery-codes') }, recoveryCodes });
  });
  router.post('/current-identity/mfa/recovery-codes', full, async (ctx) => {
    const code = await codeOf(ctx, false);
    const recoveryCodes = await throttled(ctx, () => mfa.replaceRecoveryCodes(identityOf(ctx), code));
    // The real controller answers with an empty body; the new list is also given here so a client need not ask again.
    sendDetail(ctx, { recoveryCodes });
  });
}

/** Management API: an admin removes any identity's enrollment. */
export function adminMfaRoutes(router: ApiRouter, services: EdgeServices, admin: Middleware<RequestState>): void {
  router.delete('/identities/:id/mfa', admin, async (ctx) => {
    services.identities.get(ctx.params.id!);
    await services.mfa.adminRemove(ctx.params.id!);
    sendEmpty(ctx);
  });
}
