// Management API: /identities.
import type { ApiRouter } from '../api-router.ts';
import type { Middleware } from 'koa';
import type { EdgeServices } from '../../edge/edge-services.ts';
import type { IdentityInput } from '../../edge/identity-service.ts';
import { authenticatorView } from '../views/authenticator-view.ts';
import { identityView } from '../views/identity-view.ts';
import { tables, type Identity } from '../../model/entities.ts';
import { EdgeError } from '../../edge/edge-error.ts';
import { bodyValidator, schemaParts } from '../body-schema.ts';
import type { RequestState } from '../koa-state.ts';
import { authenticatorCatalogue, enrollmentCatalogue, identityCatalogue, identityIndexes } from './catalogues.ts';
import { enrollmentView } from '../views/enrollment-view.ts';
import { sendCreated, sendDetail, sendEmpty, sendList, sendTableList, type RouteKit } from './route-kit.ts';

const identityTypes = ['User', 'Device', 'Service', 'Router', 'Default'];

const properties = {
  name: { type: 'string', minLength: 1, maxLength: 512 },
  type: { type: 'string', enum: identityTypes },
  isAdmin: { type: 'boolean' },
  authPolicyId: schemaParts.nullableString,
  externalId: schemaParts.nullableString,
  roleAttributes: schemaParts.stringList,
  tags: schemaParts.tags,
  enrollment: { type: ['object', 'null'] },
  appData: { type: ['object', 'null'] },
};

type IdentityBody = IdentityInput & { enrollment?: Record<string, unknown> | null };

const createBody = bodyValidator<IdentityBody>({ type: 'object', required: ['name', 'isAdmin'], properties });
const putBody = bodyValidator<IdentityBody>({ type: 'object', required: ['name', 'isAdmin'], properties });
const patchBody = bodyValidator<Partial<IdentityBody>>({ type: 'object', properties });
const disableBody = bodyValidator<{ durationMinutes: number }>({
  type: 'object',
  required: ['durationMinutes'],
  properties: { durationMinutes: { type: 'integer', minimum: 0, maximum: 525_600 } },
});

/** Identities as the Management API shows them (the relationship lists show them the same way). */
export function adminIdentityView(services: EdgeServices) {
  return (identity: Identity) =>
    identityView(identity, {
      authenticators: services.authenticators.forIdentity(identity.id),
      enrollments: services.enrollments.forIdentity(identity.id),
      authPolicyName: services.authPolicies.find(identity.authPolicyId)?.name ?? identity.authPolicyId,
      isMfaEnabled: services.mfa.isEnrolled(identity.id),
      hasApiSession: services.store.table('apiSessions').findMany('identityId', identity.id).length > 0,
      hasEdgeRouterConnection: services.edgeSessions.identityConnected(identity.id),
      now: services.clock.now(),
    });
}

export function identityRoutes(router: ApiRouter, services: EdgeServices, kit: RouteKit, admin: Middleware<RequestState>): void {
  const { identities, authenticators } = services;
  const view = adminIdentityView(services);
  const refuseEnrollment = (body: Partial<IdentityBody>) => {
    if (body.enrollment && Object.keys(body.enrollment).length > 0) {
      throw EdgeError.validation('enrollment', 'enrollment can only be given when the identity is created: use /enrollments for an existing identity');
    }
  };
  /** `{ott: true}` or `{updb: "<username>"}`: the first one present is used, as the real controller does. */
  const enrollmentOf = (enrollment: Record<string, unknown> | null | undefined): { method: 'ott' } | { method: 'updb'; username: string } | undefined => {
    if (!enrollment) return undefined;
    if (enrollment.ott === true) return { method: 'ott' };
    if (enrollment.updb !== undefined && enrollment.updb !== null) {
      if (typeof enrollment.updb !== 'string' || enrollment.updb.length < 4 || enrollment.updb.length > 100) {
        throw EdgeError.validation('enrollment.updb', 'enrollment.updb must be the username, 4 to 100 characters', enrollment.updb);
      }
      return { method: 'updb', username: enrollment.updb };
    }
    if (enrollment.ottca !== undefined && enrollment.ottca !== null) throw EdgeError.validation('enrollment.ottca', 'ottca enrollment is not supported: use ott, updb, or a third-party CA with auto-enrollment');
    return undefined;
  };

  router.get('/identities', admin, (ctx) => sendTableList(ctx, services.store.table<Identity>(tables.identities), identityIndexes, identityCatalogue, view));
  router.post('/identities', admin, async (ctx) => {
    const body = await kit.validBody(ctx, createBody);
    const enrollment = enrollmentOf(body.enrollment);
    const { id } = await identities.create(body, {
      ...(enrollment
        ? { enrollments: async (identityId: string) => [await services.enrollments.prepare({ id: identityId }, enrollment.method, enrollment.method === 'updb' ? { username: enrollment.username } : {})] }
        : {}),
    });
    sendCreated(ctx, id, 'identities');
  });
  router.get('/identities/:id', admin, (ctx) => sendDetail(ctx, view(identities.get(ctx.params.id!))));
  router.put('/identities/:id', admin, async (ctx) => {
    identities.get(ctx.params.id!);
    const body = await kit.validBody(ctx, putBody);
    refuseEnrollment(body);
    await identities.update(ctx.params.id!, body, 'put');
    sendEmpty(ctx);
  });
  router.patch('/identities/:id', admin, async (ctx) => {
    identities.get(ctx.params.id!);
    const body = await kit.validBody(ctx, patchBody, { optional: true });
    refuseEnrollment(body);
    await identities.update(ctx.params.id!, body, 'patch');
    sendEmpty(ctx);
  });
  router.delete('/identities/:id', admin, async (ctx) => {
    await identities.delete(ctx.params.id!);
    sendEmpty(ctx);
  });
  router.post('/identities/:id/disable', admin, async (ctx) => {
    identities.get(ctx.params.id!);
    const body = await kit.validBody(ctx, disableBody);
    await identities.disable(ctx.params.id!, body.durationMinutes);
    sendEmpty(ctx);
  });
  router.post('/identities/:id/enable', admin, async (ctx) => {
    await identities.enable(ctx.params.id!);
    sendEmpty(ctx);
  });
  router.get('/identities/:id/enrollments', admin, (ctx) => {
    const identity = identities.get(ctx.params.id!);
    sendList(ctx, services.enrollments.forIdentity(identity.id), enrollmentCatalogue, (row) => enrollmentView(row, identity));
  });
  router.get('/identities/:id/authenticators', admin, (ctx) => {
    const identity = identities.get(ctx.params.id!);
    sendList(ctx, authenticators.forIdentity(identity.id), authenticatorCatalogue, (row) => authenticatorView(row, identity));
  });
}
