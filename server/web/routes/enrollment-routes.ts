// Enrollment. Management API: /enrollments (list, read, create, delete, refresh). Client API: /enroll/ott (a CSR for a
// certificate), /enroll/updb (a password), /enroll (either, by the token's method), all with the one-time token in
// the `token` query parameter or the JSON body; and /.well-known/est/cacerts, the CA bundle as base64 PKCS#7.
import type { Middleware } from 'koa';
import type { EdgeServices } from '../../edge/edge-services.ts';
import { enrollmentView } from '../views/enrollment-view.ts';
import type { EnrollmentMethod } from '../../model/entities.ts';
import { encodeEstCaBundle } from '../../../common/pki/est-ca-bundle.ts';
import { EdgeError } from '../../edge/edge-error.ts';
import { bodyValidator } from '../body-schema.ts';
import type { ApiContext, RequestState } from '../koa-state.ts';
import type { ApiRouter } from '../api-router.ts';
import { enrollmentCatalogue } from './catalogues.ts';
import { createdEnvelope } from '../envelope.ts';
import { sendCreated, sendDetail, sendEmpty, sendJson, sendList, type RouteKit } from './route-kit.ts';

const createBody = bodyValidator<{ method: EnrollmentMethod; identityId: string; expiresAt?: string; username?: string | null }>({
  type: 'object',
  required: ['method', 'identityId'],
  properties: {
    method: { type: 'string', enum: ['ott', 'updb'] },
    identityId: { type: 'string', minLength: 1 },
    expiresAt: { type: 'string', minLength: 1 },
    username: { type: ['string', 'null'], minLength: 4, maxLength: 100 },
  },
});

const refreshBody = bodyValidator<{ expiresAt: string }>({
  type: 'object',
  required: ['expiresAt'],
  properties: { expiresAt: { type: 'string', minLength: 1 } },
});

const ottBody = bodyValidator<{ token?: string; clientCsr?: string }>({
  type: 'object',
  properties: { token: { type: 'string' }, clientCsr: { type: 'string', maxLength: 65536 } },
});
const updbBody = bodyValidator<{ token?: string; password: string }>({
  type: 'object',
  required: ['password'],
  properties: { token: { type: 'string' }, password: { type: 'string', minLength: 5, maxLength: 100 } },
});

export function enrollmentRoutes(router: ApiRouter, services: EdgeServices, kit: RouteKit, admin: Middleware<RequestState>): void {
  const { enrollments, identities } = services;
  const view = (row: Parameters<typeof enrollmentView>[0]) => enrollmentView(row, identities.find(row.identityId));
  router.get('/enrollments', admin, (ctx) => sendList(ctx, enrollments.list(), enrollmentCatalogue, view));
  router.post('/enrollments', admin, async (ctx) => {
    const body = await kit.validBody(ctx, createBody);
    const expiresAt = body.expiresAt === undefined ? undefined : dateTimeOf(body.expiresAt);
    const { id } = await enrollments.create(body.identityId, body.method, { ...(body.username ? { username: body.username } : {}), ...(expiresAt !== undefined ? { expiresAt } : {}) });
    sendCreated(ctx, id, 'enrollments');
  });
  router.get('/enrollments/:id', admin, (ctx) => sendDetail(ctx, view(enrollments.get(ctx.params.id!))));
  router.post('/enrollments/:id/refresh', admin, async (ctx) => {
    const body = await kit.validBody(ctx, refreshBody);
    const { id } = await enrollments.refresh(ctx.params.id!, dateTimeOf(body.expiresAt));
    // The spec answers a refresh 200 (not 201) with the create envelope.
    sendJson(ctx, 200, createdEnvelope(id, `./enrollments/${id}`));
  });
  router.delete('/enrollments/:id', admin, async (ctx) => {
    await enrollments.delete(ctx.params.id!);
    sendEmpty(ctx);
  });
}

/** An RFC 3339 date-time in ms, or a validation error naming expiresAt. */
function dateTimeOf(text: string): number {
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw EdgeError.validation('expiresAt', 'expiresAt must be an RFC 3339 date-time', text);
  return ms;
}

export function clientEnrollmentRoutes(router: ApiRouter, services: EdgeServices, kit: RouteKit): void {
  const { enrollments } = services;

  const enrollOtt = async (ctx: ApiContext) => {
    const { token, csr } = await ottRequest(ctx, kit);
    const certs = await enrollments.enrollOtt(token, csr);
    if (prefersPem(ctx)) {
      ctx.status = 200;
      ctx.type = 'application/x-pem-file';
      ctx.body = certs.cert;
    } else {
      sendDetail(ctx, { cert: certs.cert, ca: certs.ca });
    }
  };
  const enrollUpdb = async (ctx: ApiContext) => {
    const body = await kit.validBody(ctx, updbBody);
    await enrollments.enrollUpdb(tokenOf(ctx, body.token), body.password);
    sendEmpty(ctx);
  };

  router.post('/enroll/ott', enrollOtt);
  router.post('/enroll/updb', enrollUpdb);
  router.post('/enroll', async (ctx) => {
    const token = typeof ctx.query.token === 'string' ? ctx.query.token : '';
    // A token in the body needs the body read first; the method then decides how to read the rest.
    const method = token ? enrollments.methodOf(token) : undefined;
    if (method === 'updb') return enrollUpdb(ctx);
    return enrollOtt(ctx);
  });
  caBundleRoute(router, services);
}

/** EST's cacerts: the CA bundle clients trust the controller by, as base64 PKCS#7 (certificates only) in 64-character
 * lines, whatever the request's Accept says (as OpenZiti's controller answers it). */
export function caBundleRoute(router: ApiRouter, services: Pick<EdgeServices, 'caBundlePem'>): void {
  const body = encodeEstCaBundle(services.caBundlePem);
  router.get('/.well-known/est/cacerts', (ctx) => {
    ctx.status = 200;
    ctx.type = 'application/pkcs7-mime';
    ctx.set('content-transfer-encoding', 'base64');
    ctx.body = body;
  });
}

/** The token from `?token=` or the body. */
function tokenOf(ctx: ApiContext, bodyToken: string | undefined): string {
  const token = typeof ctx.query.token === 'string' && ctx.query.token !== '' ? ctx.query.token : bodyToken;
  if (!token) throw EdgeError.validation('token', 'token is required, in the query (?token=) or the body');
  return token;
}

/** A CSR comes as PEM text (application/x-pem-file, text/plain) or in JSON as `clientCsr`. */
async function ottRequest(ctx: ApiContext, kit: RouteKit): Promise<{ token: string; csr: string }> {
  const mediaType = (ctx.get('content-type') || '').split(';')[0]!.trim().toLowerCase();
  if (mediaType === 'application/x-pem-file' || mediaType === 'text/plain') {
    const csr = await kit.text(ctx);
    if (csr.trim() === '') throw EdgeError.validation('(root)', 'the body must be a PEM certificate request');
    return { token: tokenOf(ctx, undefined), csr };
  }
  const body = await kit.validBody(ctx, ottBody);
  if (!body.clientCsr) throw EdgeError.validation('clientCsr', 'clientCsr in body is required (or send the CSR as application/x-pem-file)');
  return { token: tokenOf(ctx, body.token), csr: body.clientCsr };
}

function prefersPem(ctx: ApiContext): boolean {
  const accept = ctx.get('accept').toLowerCase();
  return accept.includes('application/x-pem-file') && !accept.includes('application/json');
}
