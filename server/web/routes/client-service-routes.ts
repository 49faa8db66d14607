// Client API: /services. A fully authenticated client sees the services its policies let it Dial or Bind, each
// with its permissions, the posture queries it must satisfy and the data of its configs of the types the client
// asked for (`config`), its own identity-specific configs taking the place of the service's of the same type; any
// other service does not exist for it.
import type { Middleware } from 'koa';
import type { EdgeServices } from '../../edge/edge-services.ts';
import { serviceView } from '../views/service-view.ts';
import type { Service } from '../../model/service-entities.ts';
import { EdgeError } from '../../edge/edge-error.ts';
import type { ApiContext, RequestState } from '../koa-state.ts';
import type { ApiRouter } from '../api-router.ts';
import { configMapFor } from './requested-config-types.ts';
import { requireSession, sendDetail, sendList } from './route-kit.ts';
import { serviceCatalogue } from './service-catalogues.ts';

export function clientServiceRoutes(router: ApiRouter, services: EdgeServices, full: Middleware<RequestState>): void {
  const overlay = services.overlay;
  const visible = (ctx: ApiContext) => {
    const session = requireSession(ctx);
    const access = overlay.access.accessFor(ctx.state.identity!);
    const context = { posture: session, now: services.clock.now(), anyPostureChecks: overlay.access.anyPostureChecks(), config: configMapFor(ctx, overlay.configs, overlay.identityConfigs.overridesFor(ctx.state.identity!.id)) };
    return { access, view: (service: Service) => serviceView(service, { ...context, access: access.get(service.id) }) };
  };
  router.get('/services', full, (ctx) => {
    const { access, view } = visible(ctx);
    sendList(ctx, [...access.values()].map((entry) => entry.service), serviceCatalogue, view);
  });
  router.get('/services/:id', full, (ctx) => {
    const { access, view } = visible(ctx);
    const entry = access.get(ctx.params.id!);
    if (!entry) throw EdgeError.notFound('service', ctx.params.id!);
    sendDetail(ctx, view(entry.service));
  });
}
