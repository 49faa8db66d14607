// Posture responses and posture data. Client API: POST /posture-response (one response, 201) and
// /posture-response-bulk (a list, 200), each answered with the services whose MFA timers changed; a fully
// authenticated session only. Management API: GET /identities/{id}/posture-data, what the identity's live API
// sessions have reported. Every response in a request is checked before any is kept: one bad response refuses all.
import type { Middleware } from 'koa';
import type { EdgeServices } from '../../edge/edge-services.ts';
import { EdgeError } from '../../edge/edge-error.ts';
import type { PostureResponseBody } from '../../edge/posture-response-service.ts';
import type { ApiSession } from '../../model/entities.ts';
import { tables } from '../../model/entities.ts';
import { bodyValidator, type BodyValidator } from '../body-schema.ts';
import type { ApiContext, RequestState } from '../koa-state.ts';
import type { ApiRouter } from '../api-router.ts';
import { postureDataView } from '../views/posture-data-view.ts';
import { requireStoredSession, sendDetail, sendJson, type RouteKit } from './route-kit.ts';
import { detailEnvelope } from '../envelope.ts';

/** At most this many responses in one bulk request (also in docs/api-reference.md). */
export const maxBulkPostureResponses = 100;

const text = (maxLength: number) => ({ type: 'string', maxLength });
const responseTypes = ['OS', 'MAC', 'DOMAIN', 'PROCESS', 'ENDPOINT_STATE'] as const;
type ResponseType = (typeof responseTypes)[number];
const id = { type: 'string', maxLength: 256 };

const schemas: Record<ResponseType, { required: string[]; properties: Record<string, unknown> }> = {
  OS: { required: ['type', 'version'], properties: { type: text(256), version: text(256), build: { type: ['string', 'null'], maxLength: 256 } } },
  MAC: { required: ['macAddresses'], properties: { macAddresses: { type: 'array', maxItems: 1000, items: text(64) } } },
  DOMAIN: { required: ['domain'], properties: { domain: text(512) } },
  PROCESS: {
    required: [],
    properties: {
      path: { type: ['string', 'null'], maxLength: 4096 },
      isRunning: { type: ['boolean', 'null'] },
      hash: { type: ['string', 'null'], maxLength: 256 },
      signerFingerprints: { type: ['array', 'null'], maxItems: 1000, items: text(256) },
    },
  },
  ENDPOINT_STATE: { required: [], properties: { woken: { type: ['boolean', 'null'] }, unlocked: { type: ['boolean', 'null'] } } },
};

const typeOf = bodyValidator<{ id: string; typeId: string }>({ type: 'object', required: ['id', 'typeId'], properties: { id, typeId: text(64) } });
const validators = Object.fromEntries(
  responseTypes.map((type) => [type, bodyValidator<PostureResponseBody>({ type: 'object', required: ['id', 'typeId', ...schemas[type].required], properties: { id, typeId: { type: 'string' }, ...schemas[type].properties } })]),
) as Record<ResponseType, BodyValidator<PostureResponseBody>>;

function postureResponse(raw: unknown, field: string): PostureResponseBody {
  try {
    const { typeId } = typeOf(raw);
    if (!(responseTypes as readonly string[]).includes(typeId)) {
      throw EdgeError.validation('typeId', `posture responses are of type ${responseTypes.join(', ')}`, typeId);
    }
    return validators[typeId as ResponseType](raw);
  } catch (error) {
    // In a bulk request the failing field names its place in the list.
    if (field && error instanceof EdgeError && error.cause && 'field' in error.cause) throw EdgeError.validation(`${field}${error.cause.field}`, error.cause.reason, error.cause.value);
    throw error;
  }
}

export function clientPostureResponseRoutes(router: ApiRouter, services: EdgeServices, kit: RouteKit, full: Middleware<RequestState>): void {
  const submit = async (ctx: ApiContext, responses: PostureResponseBody[], status: number) => {
    const session = await requireStoredSession(ctx, services);
    const changed = await services.overlay.postureResponses.submit(session, ctx.state.identity!, responses);
    sendJson(ctx, status, detailEnvelope({ services: changed }));
  };
  router.post('/posture-response', full, async (ctx) => {
    const body = await kit.body(ctx);
    if (body === undefined) throw EdgeError.validation('(root)', 'a request body is required');
    await submit(ctx, [postureResponse(body, '')], 201);
  });
  router.post('/posture-response-bulk', full, async (ctx) => {
    const body = await kit.body(ctx);
    if (!Array.isArray(body)) throw EdgeError.validation('(root)', 'a list of posture responses is required', undefined);
    if (body.length > maxBulkPostureResponses) throw EdgeError.validation('(root)', `at most ${maxBulkPostureResponses} posture responses in one request`, body.length);
    await submit(ctx, body.map((item, index) => postureResponse(item, `[${index}].`)), 200);
  });
}

export function postureDataRoutes(router: ApiRouter, services: EdgeServices, admin: Middleware<RequestState>): void {
  router.get('/identities/:id/posture-data', admin, (ctx) => {
    const identity = services.identities.get(ctx.params.id!);
    const sessions = services.store.table<ApiSession>(tables.apiSessions).findMany('identityId', identity.id).filter((session) => !services.sessions.isExpired(session));
    sendDetail(ctx, postureDataView(sessions, services.clock.now()));
  });
}
