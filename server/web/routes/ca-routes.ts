// Management API: /cas, third-party CAs, and their proof-of-possession verification (a PEM body, text/plain).
import type { Middleware } from 'koa';
import type { CaInput } from '../../edge/ca-service.ts';
import type { EdgeServices } from '../../edge/edge-services.ts';
import { caView } from '../views/ca-view.ts';
import { EdgeError } from '../../edge/edge-error.ts';
import { bodyValidator, schemaParts } from '../body-schema.ts';
import type { RequestState } from '../koa-state.ts';
import type { ApiRouter } from '../api-router.ts';
import { caCatalogue } from './catalogues.ts';
import { sendCreated, sendDetail, sendEmpty, sendList, type RouteKit } from './route-kit.ts';

/** The spec's externalIdClaim: all six members, each nullable, so what is stored reads back as the spec describes it. */
function externalIdClaimSchema() {
  const oneOf = (values: string[]) => ({ type: ['string', 'null'], enum: [...values, null] });
  return {
    type: ['object', 'null'],
    required: ['location', 'matcher', 'matcherCriteria', 'parser', 'parserCriteria', 'index'],
    properties: {
      location: oneOf(['COMMON_NAME', 'SAN_URI', 'SAN_EMAIL']),
      matcher: oneOf(['ALL', 'PREFIX', 'SUFFIX', 'SCHEME']),
      matcherCriteria: { type: ['string', 'null'], maxLength: 1024 },
      parser: oneOf(['NONE', 'SPLIT']),
      parserCriteria: { type: ['string', 'null'], maxLength: 1024 },
      index: { type: ['integer', 'null'], minimum: -2_147_483_648, maximum: 2_147_483_647 },
    },
  };
}

type ExternalIdClaim = NonNullable<CaInput['externalIdClaim']>;

/** The body with exactly the claim's six members: others it carried are not stored. */
function knownClaim<T extends { externalIdClaim?: ExternalIdClaim | null }>(body: T): T {
  const claim = body.externalIdClaim;
  if (!claim) return body;
  const { location, matcher, matcherCriteria, parser, parserCriteria, index } = claim as Record<string, unknown>;
  return { ...body, externalIdClaim: { location, matcher, matcherCriteria, parser, parserCriteria, index } };
}

const properties = {
  name: { type: 'string', minLength: 1, maxLength: 512 },
  certPem: { type: 'string', minLength: 1, maxLength: 65536 },
  isAutoCaEnrollmentEnabled: { type: 'boolean' },
  isOttCaEnrollmentEnabled: { type: 'boolean' },
  isAuthEnabled: { type: 'boolean' },
  identityRoles: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 1024 }, maxItems: 1000 },
  identityNameFormat: { type: ['string', 'null'], maxLength: 512 },
  externalIdClaim: externalIdClaimSchema(),
  tags: schemaParts.tags,
};
const updateProperties = Object.fromEntries(Object.entries(properties).filter(([key]) => key !== 'certPem'));
const settingsRequired = ['name', 'isAutoCaEnrollmentEnabled', 'isOttCaEnrollmentEnabled', 'isAuthEnabled', 'identityRoles'];

const createBody = bodyValidator<CaInput>({ type: 'object', required: ['certPem', ...settingsRequired], properties });
const putBody = bodyValidator<Partial<CaInput>>({ type: 'object', required: settingsRequired, properties: updateProperties });
const patchBody = bodyValidator<Partial<CaInput>>({ type: 'object', properties: updateProperties });

export function caRoutes(router: ApiRouter, services: EdgeServices, kit: RouteKit, admin: Middleware<RequestState>): void {
  const { cas } = services;
  router.get('/cas', admin, (ctx) => sendList(ctx, cas.list(), caCatalogue, caView));
  router.post('/cas', admin, async (ctx) => {
    const { id } = await cas.create(knownClaim(await kit.validBody(ctx, createBody)));
    sendCreated(ctx, id, 'cas');
  });
  router.get('/cas/:id', admin, (ctx) => sendDetail(ctx, caView(cas.get(ctx.params.id!))));
  router.put('/cas/:id', admin, async (ctx) => {
    cas.get(ctx.params.id!);
    await cas.update(ctx.params.id!, knownClaim(await kit.validBody(ctx, putBody)), 'put');
    sendEmpty(ctx);
  });
  router.patch('/cas/:id', admin, async (ctx) => {
    cas.get(ctx.params.id!);
    await cas.update(ctx.params.id!, knownClaim(await kit.validBody(ctx, patchBody, { optional: true })), 'patch');
    sendEmpty(ctx);
  });
  router.delete('/cas/:id', admin, async (ctx) => {
    await cas.delete(ctx.params.id!);
    sendEmpty(ctx);
  });
  router.post('/cas/:id/verify', admin, async (ctx) => {
    cas.get(ctx.params.id!);
    const mediaType = (ctx.get('content-type') || 'text/plain').split(';')[0]!.trim().toLowerCase();
    if (mediaType !== 'text/plain' && mediaType !== 'application/x-pem-file') {
      throw new EdgeError('UNSUPPORTED_MEDIA_TYPE', { field: 'Content-Type', reason: 'send the PEM certificate as text/plain', value: mediaType });
    }
    await cas.verify(ctx.params.id!, await kit.text(ctx));
    sendEmpty(ctx);
  });
}
