// Management API: /controller-settings, the global settings and each controller's overrides, with a controller's
// effective settings at /controller-settings/{id}/effective. As in the 0.29 spec, a row is replaced (PUT), updated
// (PATCH) and deleted (DELETE) at its `/effective` path; `{id}` is `global` or a controller's id.
import type { Middleware } from 'koa';
import type { ControllerSettingInput } from '../../edge/controller-settings.ts';
import type { EdgeServices } from '../../edge/edge-services.ts';
import type { ControllerSetting } from '../../model/controller-setting-entities.ts';
import { bodyValidator, schemaParts } from '../body-schema.ts';
import type { FieldCatalogue } from '../query/list-query.ts';
import type { RequestState } from '../koa-state.ts';
import type { ApiRouter } from '../api-router.ts';
import { controllerSettingEffectiveView, controllerSettingView } from '../views/controller-setting-view.ts';
import { sendCreated, sendDetail, sendEmpty, sendList, type RouteKit } from './route-kit.ts';

const uriList = { type: ['array', 'null'], items: { type: 'string', minLength: 1, maxLength: 2048 }, maxItems: 100 };
const settingProperties = {
  oidc: { type: ['object', 'null'], additionalProperties: false, properties: { redirectUris: uriList, postLogoutUris: uriList } },
  tags: schemaParts.tags,
};

type SettingBody = ControllerSettingInput & { controllerId?: string; tags?: Record<string, unknown> };

const createBody = bodyValidator<SettingBody>({ type: 'object', required: ['controllerId'], properties: { controllerId: { type: 'string', minLength: 1, maxLength: 512 }, ...settingProperties } });
const updateBody = bodyValidator<SettingBody>({ type: 'object', properties: settingProperties });

export const controllerSettingCatalogue: FieldCatalogue<ControllerSetting> = {
  id: { type: 'string', get: (row) => row.id },
  createdAt: { type: 'datetime', get: (row) => row.createdAt },
  updatedAt: { type: 'datetime', get: (row) => row.updatedAt },
};

const input = (body: SettingBody): ControllerSettingInput => ({ ...(body.oidc !== undefined ? { oidc: body.oidc } : {}), ...(body.tags ? { tags: body.tags } : {}) });

/** `members`: the ids of the cluster's controllers now, which may have rows of their own. */
export function controllerSettingRoutes(router: ApiRouter, services: EdgeServices, kit: RouteKit, admin: Middleware<RequestState>, members: () => Promise<readonly string[]>): void {
  const { controllerSettings: settings } = services;
  // In id order, the global row among the controllers' (a row not yet written reads as empty).
  router.get('/controller-settings', admin, (ctx) => sendList(ctx, settings.list(), controllerSettingCatalogue, controllerSettingView));
  router.post('/controller-settings', admin, async (ctx) => {
    const body = await kit.validBody(ctx, createBody);
    const { id } = await settings.create(body.controllerId!, input(body), await members());
    sendCreated(ctx, id, 'controller-settings');
  });
  router.get('/controller-settings/:id', admin, (ctx) => sendDetail(ctx, controllerSettingView(settings.get(ctx.params.id!))));
  router.get('/controller-settings/:id/effective', admin, (ctx) => {
    const id = ctx.params.id!;
    sendDetail(ctx, controllerSettingEffectiveView(settings.get(id), settings.effective(id)));
  });
  for (const mode of ['put', 'patch'] as const) {
    router[mode]('/controller-settings/:id/effective', admin, async (ctx) => {
      settings.get(ctx.params.id!);
      await settings.update(ctx.params.id!, input(await kit.validBody(ctx, updateBody, { optional: mode === 'patch' })), mode);
      sendEmpty(ctx);
    });
  }
  router.delete('/controller-settings/:id/effective', admin, async (ctx) => {
    await settings.delete(ctx.params.id!);
    sendEmpty(ctx);
  });
}
