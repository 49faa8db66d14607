// Management API: /posture-checks. `typeId` picks the check's kind (it is the discriminator on create, PUT and
// PATCH); only MFA is supported, and the other kinds the real controller knows are refused by name.
import type { Middleware } from 'koa';
import type { EdgeServices } from '../../edge/edge-services.ts';
import type { PostureCheckInput } from '../../edge/posture-check-service.ts';
import { postureCheckView } from '../views/posture-check-view.ts';
import type { PostureCheck } from '../../model/service-entities.ts';
import { EdgeError } from '../../edge/edge-error.ts';
import { bodyValidator, schemaParts } from '../body-schema.ts';
import type { RequestState } from '../koa-state.ts';
import type { ApiRouter } from '../api-router.ts';
import { sendCreated, sendDetail, sendEmpty, sendList, type RouteKit } from './route-kit.ts';
import { postureCheckCatalogue } from './service-catalogues.ts';

const knownTypes = ['MFA', 'OS', 'PROCESS', 'PROCESS_MULTI', 'DOMAIN', 'MAC'];

const properties = {
  typeId: { type: 'string', enum: knownTypes },
  name: { type: 'string', minLength: 1, maxLength: 512 },
  roleAttributes: schemaParts.stringList,
  tags: schemaParts.tags,
  timeoutSeconds: { type: ['integer', 'null'], minimum: -2_147_483_648, maximum: 2_147_483_647 },
  promptOnWake: { type: ['boolean', 'null'] },
  promptOnUnlock: { type: ['boolean', 'null'] },
  ignoreLegacyEndpoints: { type: ['boolean', 'null'] },
};

type CheckBody = { [K in keyof typeof properties]?: unknown };

const fullBody = bodyValidator<CheckBody>({ type: 'object', required: ['typeId', 'name'], properties });
const patchBody = bodyValidator<CheckBody>({ type: 'object', required: ['typeId'], properties });

function requireMfa(body: CheckBody): CheckBody {
  if (body.typeId !== 'MFA') throw EdgeError.validation('typeId', `posture checks of type ${String(body.typeId)} are not supported: only MFA is supported`, body.typeId);
  return body;
}

function inputOf(body: CheckBody, current?: PostureCheck): PostureCheckInput {
  const pick = <K extends keyof CheckBody & keyof PostureCheck>(key: K, fallback: PostureCheck[K]): PostureCheck[K] =>
    body[key] === undefined ? (current ? current[key] : fallback) : ((body[key] ?? fallback) as PostureCheck[K]);
  return {
    typeId: 'MFA',
    name: pick('name', ''),
    roleAttributes: [...pick('roleAttributes', [])],
    tags: pick('tags', {}),
    timeoutSeconds: pick('timeoutSeconds', -1),
    promptOnWake: pick('promptOnWake', false),
    promptOnUnlock: pick('promptOnUnlock', false),
    ignoreLegacyEndpoints: pick('ignoreLegacyEndpoints', false),
  };
}

export function postureCheckRoutes(router: ApiRouter, services: EdgeServices, kit: RouteKit, admin: Middleware<RequestState>): void {
  const checks = services.overlay.postureChecks;
  router.get('/posture-checks', admin, (ctx) => sendList(ctx, checks.list(), postureCheckCatalogue, postureCheckView));
  router.post('/posture-checks', admin, async (ctx) => {
    const { id } = await checks.create(inputOf(requireMfa(await kit.validBody(ctx, fullBody))));
    sendCreated(ctx, id, 'posture-checks');
  });
  router.get('/posture-checks/:id', admin, (ctx) => sendDetail(ctx, postureCheckView(checks.get(ctx.params.id!))));
  router.put('/posture-checks/:id', admin, async (ctx) => {
    checks.get(ctx.params.id!);
    await checks.update(ctx.params.id!, inputOf(requireMfa(await kit.validBody(ctx, fullBody))));
    sendEmpty(ctx);
  });
  router.patch('/posture-checks/:id', admin, async (ctx) => {
    const current = checks.get(ctx.params.id!);
    await checks.update(ctx.params.id!, inputOf(requireMfa(await kit.validBody(ctx, patchBody)), current));
    sendEmpty(ctx);
  });
  router.delete('/posture-checks/:id', admin, async (ctx) => {
    await checks.delete(ctx.params.id!);
    sendEmpty(ctx);
  });
}
