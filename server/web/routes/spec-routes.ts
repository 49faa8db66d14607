// Both Edge APIs: /specs, /specs/{id} and /specs/{id}/spec, the API descriptions this controller serves, as the real
// controller lists its swagger files: `edge-client` and `edge-management`, each generated when asked from the routes
// of that API on this web entry (api-spec-document.ts). No session is needed, as on the real controller.
import { EdgeError } from '../../edge/edge-error.ts';
import type { ApiRouter } from '../api-router.ts';
import { specDocument } from '../api-spec-document.ts';
import { link } from '../views/links.ts';
import { sendDetail, sendJson } from './route-kit.ts';
import { listEnvelope } from '../envelope.ts';

/** The API routers of one web app by spec id, filled as each is built; read when a spec is asked for. */
export type SpecSources = Map<string, ApiRouter>;

const titles: Record<string, string> = { 'edge-client': 'edgeward Edge Client API', 'edge-management': 'edgeward Edge Management API' };

export function specRoutes(router: ApiRouter, sources: SpecSources, version: string, publishedAt: () => string): void {
  const view = (id: string) => ({ id, name: id, createdAt: publishedAt(), updatedAt: publishedAt(), tags: {}, _links: { self: link(`./specs/${id}`), spec: link(`./specs/${id}/spec`) } });
  const sourceOf = (id: string) => {
    const source = sources.get(id);
    if (!source) throw EdgeError.notFound('spec', id);
    return source;
  };
  router.get('/specs', (ctx) => {
    const ids = [...sources.keys()].sort();
    sendJson(ctx, 200, listEnvelope(ids.map(view), { pagination: { limit: ids.length, offset: 0, totalCount: ids.length }, filterableFields: [] }));
  });
  router.get('/specs/:id', (ctx) => {
    sourceOf(ctx.params.id!);
    sendDetail(ctx, view(ctx.params.id!));
  });
  router.get('/specs/:id/spec', (ctx) => {
    const id = ctx.params.id!;
    const source = sourceOf(id);
    // The body is the document as text, as the spec's `specBodyDetail` (a string) has it.
    sendDetail(ctx, JSON.stringify(specDocument(source.routes(), { name: id, title: titles[id] ?? id, version, basePath: source.prefix }), null, 2));
  });
}
