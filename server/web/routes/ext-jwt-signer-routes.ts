// Management API: /external-jwt-signers; the Client API's public list of enabled signers.
import type { Middleware } from 'koa';
import type { EdgeServices } from '../../edge/edge-services.ts';
import type { ExternalJwtSignerInput } from '../../edge/ext-jwt-signer-service.ts';
import { clientExternalJwtSignerView, externalJwtSignerView } from '../views/ext-jwt-signer-view.ts';
import type { ExternalJwtSigner } from '../../model/entities.ts';
import { bodyValidator, schemaParts } from '../body-schema.ts';
import type { RequestState } from '../koa-state.ts';
import type { ApiRouter } from '../api-router.ts';
import { externalJwtSignerCatalogue } from './catalogues.ts';
import { sendCreated, sendDetail, sendEmpty, sendList, type RouteKit } from './route-kit.ts';

const text = (maxLength: number) => ({ type: ['string', 'null'], maxLength });

const properties = {
  name: { type: 'string', minLength: 1, maxLength: 512 },
  issuer: { type: 'string', minLength: 1, maxLength: 2048 },
  audience: text(2048),
  enabled: { type: 'boolean' },
  certPem: text(65536),
  jwksEndpoint: text(2048),
  kid: text(512),
  claimsProperty: text(512),
  useExternalId: { type: ['boolean', 'null'] },
  externalAuthUrl: text(2048),
  clientId: text(512),
  scopes: schemaParts.stringList,
  targetToken: { type: ['string', 'null'], enum: ['ACCESS', 'ID', null] },
  tags: schemaParts.tags,
  enrollToCertEnabled: { type: ['boolean', 'null'] },
  enrollToTokenEnabled: { type: ['boolean', 'null'] },
};

type SignerBody = { [K in keyof typeof properties]?: unknown };

const fullBody = bodyValidator<SignerBody>({ type: 'object', required: ['name', 'issuer', 'audience', 'enabled'], properties });
const patchBody = bodyValidator<SignerBody>({ type: 'object', properties });

function inputOf(body: SignerBody, current?: ExternalJwtSigner): ExternalJwtSignerInput {
  const pick = <K extends keyof SignerBody & keyof ExternalJwtSigner>(key: K, fallback: ExternalJwtSigner[K]): ExternalJwtSigner[K] =>
    body[key] === undefined ? (current ? current[key] : fallback) : ((body[key] ?? fallback) as ExternalJwtSigner[K]);
  // A PATCH that switches the key source names the new one; the other is dropped.
  const switchesToCert = body.certPem !== undefined && body.certPem !== null && body.jwksEndpoint === undefined;
  const switchesToJwks = body.jwksEndpoint !== undefined && body.jwksEndpoint !== null && body.certPem === undefined;
  return {
    tags: pick('tags', {}),
    name: pick('name', ''),
    issuer: pick('issuer', ''),
    audience: pick('audience', null),
    enabled: pick('enabled', false),
    certPem: switchesToJwks ? null : pick('certPem', null),
    jwksEndpoint: switchesToCert ? null : pick('jwksEndpoint', null),
    kid: pick('kid', null),
    claimsProperty: pick('claimsProperty', 'sub'),
    useExternalId: pick('useExternalId', false),
    externalAuthUrl: pick('externalAuthUrl', null),
    clientId: pick('clientId', null),
    scopes: pick('scopes', []),
    targetToken: pick('targetToken', null),
  };
}

export function externalJwtSignerRoutes(router: ApiRouter, services: EdgeServices, kit: RouteKit, admin: Middleware<RequestState>): void {
  const { signers } = services;
  router.get('/external-jwt-signers', admin, (ctx) => sendList(ctx, signers.list(), externalJwtSignerCatalogue, externalJwtSignerView));
  router.post('/external-jwt-signers', admin, async (ctx) => {
    const { id } = await signers.create(inputOf(await kit.validBody(ctx, fullBody)));
    sendCreated(ctx, id, 'external-jwt-signers');
  });
  router.get('/external-jwt-signers/:id', admin, (ctx) => sendDetail(ctx, externalJwtSignerView(signers.get(ctx.params.id!))));
  router.put('/external-jwt-signers/:id', admin, async (ctx) => {
    signers.get(ctx.params.id!);
    await signers.update(ctx.params.id!, inputOf(await kit.validBody(ctx, fullBody)));
    sendEmpty(ctx);
  });
  router.patch('/external-jwt-signers/:id', admin, async (ctx) => {
    const current = signers.get(ctx.params.id!);
    await signers.update(ctx.params.id!, inputOf(await kit.validBody(ctx, patchBody, { optional: true }), current));
    sendEmpty(ctx);
  });
  router.delete('/external-jwt-signers/:id', admin, async (ctx) => {
    await signers.delete(ctx.params.id!);
    sendEmpty(ctx);
  });
}

/** Client API: public, so a client can find where to get a JWT before it has a session. */
export function clientExternalJwtSignerRoutes(router: ApiRouter, services: EdgeServices): void {
  router.get('/external-jwt-signers', (ctx) => sendList(ctx, services.signers.enabled(), externalJwtSignerCatalogue, clientExternalJwtSignerView));
}
