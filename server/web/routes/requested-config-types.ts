// Which config types' data a service listing shows: the `configTypes` query parameter when given (repeatable, or
// comma-separated as the real controller splits it), otherwise those the API session asked for at authenticate.
import type { ConfigService } from '../../edge/config-service.ts';
import type { Service } from '../../model/service-entities.ts';
import type { ApiContext } from '../koa-state.ts';
import { requireSession } from './route-kit.ts';

export function requestedConfigTypes(ctx: ApiContext, configs: ConfigService): string[] {
  const raw = ctx.query.configTypes;
  const given = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).flatMap((value) => value.split(',')).map((value) => value.trim()).filter(Boolean);
  // Sessions keep ids (or `all`); resolving them again also serves sessions that kept the names they were given.
  return configs.resolveTypeIds(given.length > 0 ? given : requireSession(ctx).configTypes);
}

/** The `config` map of each service shown to this request; `overrides` are the caller's identity-specific service
 * configs (service id → config type id → config id). */
export function configMapFor(ctx: ApiContext, configs: ConfigService, overrides?: ReadonlyMap<string, ReadonlyMap<string, string>>): (service: Service) => Record<string, unknown> {
  const typeIds = requestedConfigTypes(ctx, configs);
  return (service) => configs.configMap(service, typeIds, overrides?.get(service.id));
}
