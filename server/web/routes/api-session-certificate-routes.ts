// Client API: `/current-api-session/certificates`: list, create from a CSR, read and delete the calling API
// session's short-lived client certificates (server/edge/api-session-certificates.ts). A session sees only its own.
import type { Middleware } from 'koa';
import type { EdgeServices } from '../../edge/edge-services.ts';
import type { ApiSessionCertificate } from '../../model/entities.ts';
import type { FieldCatalogue } from '../query/list-query.ts';
import { bodyValidator } from '../body-schema.ts';
import type { RequestState } from '../koa-state.ts';
import type { ApiRouter } from '../api-router.ts';
import { link } from '../views/links.ts';
import { requireSession, requireStoredSession, sendDetail, sendEmpty, sendJson, sendList, type RouteKit } from './route-kit.ts';

const collection = 'current-api-session/certificates';

const createBody = bodyValidator<{ csr: string }>({
  type: 'object',
  required: ['csr'],
  properties: { csr: { type: 'string', minLength: 1, maxLength: 65536 } },
});

const catalogue: FieldCatalogue<ApiSessionCertificate> = {
  id: { type: 'string', get: (row) => row.id },
  createdAt: { type: 'datetime', get: (row) => row.createdAt },
  updatedAt: { type: 'datetime', get: (row) => row.createdAt },
  subject: { type: 'string', get: (row) => row.subject },
  fingerprint: { type: 'string', get: (row) => row.fingerprint },
  validFrom: { type: 'datetime', get: (row) => row.validFrom },
  validTo: { type: 'datetime', get: (row) => row.validTo },
};

/** The spec's currentApiSessionCertificateDetail. A certificate never changes: updatedAt is its creation. */
function certificateView(row: ApiSessionCertificate) {
  return {
    id: row.id,
    createdAt: row.createdAt,
    updatedAt: row.createdAt,
    tags: {},
    _links: { self: link(`./${collection}/${row.id}`) },
    subject: row.subject,
    fingerprint: row.fingerprint,
    validFrom: row.validFrom,
    validTo: row.validTo,
    certificate: row.certificate,
  };
}

export function apiSessionCertificateRoutes(router: ApiRouter, services: EdgeServices, kit: RouteKit, full: Middleware<RequestState>): void {
  const certificates = services.sessionCertificates;
  router.get(`/${collection}`, full, (ctx) => sendList(ctx, certificates.list(requireSession(ctx)), catalogue, certificateView));
  router.post(`/${collection}`, full, async (ctx) => {
    const body = await kit.validBody(ctx, createBody);
    const { certificate, cas } = await certificates.create(await requireStoredSession(ctx, services), body.csr);
    sendJson(ctx, 201, { data: { id: certificate.id, _links: { self: link(`./${collection}/${certificate.id}`) }, certificate: certificate.certificate, cas }, meta: {} });
  });
  router.get(`/${collection}/:id`, full, (ctx) => sendDetail(ctx, certificateView(certificates.get(requireSession(ctx), ctx.params.id!))));
  router.delete(`/${collection}/:id`, full, async (ctx) => {
    await certificates.delete(requireSession(ctx), ctx.params.id!);
    sendEmpty(ctx);
  });
}
