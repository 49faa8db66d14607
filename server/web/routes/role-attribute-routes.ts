// Management API: the role attributes in use by identities, services, edge routers and posture checks
// (`/identity-role-attributes`, ...): each attribute once, sorted; `filter`, `sort`, `limit` and `offset` work on
// the attribute as `id` (`filter=id contains "web"`), as the real controller's do.
import type { Middleware } from 'koa';
import type { EdgeServices } from '../../edge/edge-services.ts';
import { roleAttributesInUse, type RoleAttributeRow } from '../../edge/role-attribute-lists.ts';
import type { FieldCatalogue } from '../query/list-query.ts';
import type { RequestState } from '../koa-state.ts';
import type { ApiRouter } from '../api-router.ts';
import { sendList } from './route-kit.ts';

const attributeCatalogue: FieldCatalogue<RoleAttributeRow> = { id: { type: 'string', get: (row) => row.id } };

export function roleAttributeRoutes(router: ApiRouter, services: EdgeServices, admin: Middleware<RequestState>): void {
  const lists: Record<string, () => Iterable<{ readonly roleAttributes: readonly string[] }>> = {
    '/identity-role-attributes': () => services.identities.list(),
    '/service-role-attributes': () => services.overlay.services.list(),
    '/edge-router-role-attributes': () => services.routers.list(),
    '/posture-check-role-attributes': () => services.overlay.postureChecks.list(),
  };
  for (const [path, holders] of Object.entries(lists)) {
    router.get(path, admin, (ctx) => sendList(ctx, roleAttributesInUse(holders()), attributeCatalogue, (row) => row.id));
  }
}
