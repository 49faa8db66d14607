// Management API: /revocations, list, create and read (revocations are not changed or deleted: they expire).
import type { Middleware } from 'koa';
import type { EdgeServices } from '../../edge/edge-services.ts';
import type { RevocationInput } from '../../edge/revocation-service.ts';
import { revocationTypes, type Revocation } from '../../model/revocation-entities.ts';
import { bodyValidator, schemaParts } from '../body-schema.ts';
import type { FieldCatalogue } from '../query/list-query.ts';
import type { RequestState } from '../koa-state.ts';
import type { ApiRouter } from '../api-router.ts';
import { revocationView } from '../views/revocation-view.ts';
import { sendCreated, sendDetail, sendList, type RouteKit } from './route-kit.ts';

const createBody = bodyValidator<{ id: string; type?: RevocationInput['type']; tags?: Record<string, unknown> | null }>({
  type: 'object',
  required: ['id', 'type'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 512 }, type: { type: 'string', enum: [...revocationTypes] }, tags: schemaParts.tags },
});

export const revocationCatalogue: FieldCatalogue<Revocation> = {
  id: { type: 'string', get: (row) => row.id },
  createdAt: { type: 'datetime', get: (row) => row.createdAt },
  updatedAt: { type: 'datetime', get: (row) => row.updatedAt },
  type: { type: 'string', get: (row) => row.type },
  expiresAt: { type: 'datetime', get: (row) => row.expiresAt },
};

export function revocationRoutes(router: ApiRouter, services: EdgeServices, kit: RouteKit, admin: Middleware<RequestState>): void {
  const { revocations } = services;
  router.get('/revocations', admin, (ctx) => sendList(ctx, revocations.list(), revocationCatalogue, revocationView));
  router.post('/revocations', admin, async (ctx) => {
    const body = await kit.validBody(ctx, createBody);
    const { id } = await revocations.create({ id: body.id, type: body.type ?? 'JTI', tags: body.tags ?? {} });
    sendCreated(ctx, id, 'revocations');
  });
  router.get('/revocations/:id', admin, (ctx) => sendDetail(ctx, revocationView(revocations.get(ctx.params.id!))));
}
