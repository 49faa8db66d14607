// Small pieces every route module uses: reading a validated body, answering with an envelope, list queries.
import type { Next } from 'koa';
import type { ApiSession } from '../../model/entities.ts';
import type { EdgeServices } from '../../edge/edge-services.ts';
import { isOidcSession } from '../../oidc/oidc-sessions.ts';
import { EdgeError } from '../../edge/edge-error.ts';
import type { BodyValidator } from '../body-schema.ts';
import { createdEnvelope, detailEnvelope, emptyEnvelope, listEnvelope } from '../envelope.ts';
import type { ApiContext } from '../koa-state.ts';
import { parseJsonBody, readRawBody } from '../request-body.ts';
import { runListQuery } from '../query/list-query.ts';
import type { FieldCatalogue } from '../query/list-query.ts';
import type { EntityTable } from '../../store/entity-table.ts';
import { IndexBuilding, tableListSource, type FieldIndexes } from './table-list-source.ts';
import { slicesOnImmediate } from './slices-on-immediate.ts';

export interface RouteKit {
  /** The parsed JSON body (undefined when empty), limited in size. */
  body(ctx: ApiContext): Promise<unknown>;
  /** The raw body as text (PEM, CSR), limited in size. */
  text(ctx: ApiContext): Promise<string>;
  /** The body checked against a schema; an empty body reads as `{}` where `optional`. */
  validBody<T>(ctx: ApiContext, validator: BodyValidator<T>, options?: { optional?: boolean }): Promise<T>;
}

export function routeKit(maxBodyBytes: number): RouteKit {
  const body = async (ctx: ApiContext) => parseJsonBody(await readRawBody(ctx.req, maxBodyBytes), ctx.get('content-type') || undefined);
  return {
    body,
    text: async (ctx: ApiContext) => (await readRawBody(ctx.req, maxBodyBytes)).toString('utf8'),
    async validBody<T>(ctx: ApiContext, validator: BodyValidator<T>, options: { optional?: boolean } = {}) {
      const parsed = await body(ctx);
      if (parsed === undefined) {
        if (options.optional) return validator({});
        throw EdgeError.validation('(root)', 'a request body is required');
      }
      return validator(parsed);
    },
  };
}

const jsonContentType = 'application/json; charset=utf-8';

/** Answers `status` with `value` as JSON. Serialised here with the type named outright, which spares Koa looking
 * the type up by extension on every response; the bytes are what Koa would send for the object. */
export function sendJson(ctx: ApiContext, status: number, value: unknown): void {
  ctx.status = status;
  ctx.set('Content-Type', jsonContentType);
  ctx.body = JSON.stringify(value);
}

export const sendDetail = (ctx: ApiContext, data: unknown) => sendJson(ctx, 200, detailEnvelope(data));

export const sendEmpty = (ctx: ApiContext) => sendJson(ctx, 200, emptyEnvelope());

export const sendCreated = (ctx: ApiContext, id: string, collection: string) => sendJson(ctx, 201, createdEnvelope(id, `./${collection}/${id}`));

export function sendList<T extends { id: string }>(ctx: ApiContext, items: readonly T[], catalogue: FieldCatalogue<T>, view: (item: T) => unknown) {
  // Without a sort, lists come in id order, so paging is stable across requests and restarts. Tables hand out
  // their rows in id order already; only other lists are sorted here.
  const ordered = inIdOrder(items) ? items : [...items].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const result = runListQuery(ordered, ctx.query as Record<string, string | string[] | undefined>, catalogue);
  sendJson(ctx, 200, listEnvelope(result.data.map(view), result.meta));
}

/** How long a list waits for an index being built in the background before it visits every row instead. */
export const listIndexWaitMs = 60_000;
/** How often a waiting list looks whether its index is built. */
const listIndexPollMs = 20;

/** A list of a whole model table: filters its indexes answer read only the rows they name (table-list-source.ts),
 * and only the page is turned into its API representation. Text indexes and name orders are built in the background,
 * a slice at a time; a list that would read one still being built waits for it (up to listIndexWaitMs, then visits
 * every row): at 1M rows that visit holds the controller for seconds, the wait holds nothing. A list whose request
 * was answered meanwhile (its deadline) or whose client left stops waiting and reads nothing. */
export async function sendTableList<T extends { id: string }>(ctx: ApiContext, table: EntityTable<T>, fields: FieldIndexes, catalogue: FieldCatalogue<T>, view: (item: T) => unknown) {
  const query = ctx.query as Record<string, string | string[] | undefined>;
  const giveUpAt = Date.now() + listIndexWaitMs;
  for (;;) {
    const waitForBuilds = Date.now() < giveUpAt;
    try {
      const result = runListQuery(tableListSource(table, fields, catalogue, { schedule: slicesOnImmediate, waitForBuilds }), query, catalogue);
      sendJson(ctx, 200, listEnvelope(result.data.map(view), result.meta));
      return;
    } catch (error) {
      if (!(error instanceof IndexBuilding)) throw error;
      while (!error.ready() && Date.now() < giveUpAt && !answeredOrGone(ctx)) await new Promise((done) => setTimeout(done, listIndexPollMs));
      // The request's deadline answered it (503 TIMEOUT, well before listIndexWaitMs) or its client left: nobody
      // waits for these rows, and reading every row for nobody would hold the controller for seconds at 1M.
      if (answeredOrGone(ctx)) return;
    }
  }
}

function answeredOrGone(ctx: ApiContext): boolean {
  return ctx.res.headersSent || ctx.res.writableEnded || ctx.res.destroyed;
}

function inIdOrder(items: readonly { id: string }[]): boolean {
  for (let i = 1; i < items.length; i++) if (items[i - 1]!.id > items[i]!.id) return false;
  return true;
}

/** The session the guard resolved; routes behind a guard can rely on it. */
export function requireSession(ctx: ApiContext): ApiSession {
  if (!ctx.state.session) throw new EdgeError('UNAUTHORIZED');
  return ctx.state.session;
}

/** The request's session as stored in the model: an OIDC session is written now if it never was (oidc-sessions.ts),
 * for a route that keeps something with it (a service session, posture data, a session certificate). */
export async function requireStoredSession(ctx: ApiContext, services: Pick<EdgeServices, 'oidc'>): Promise<ApiSession> {
  const session = requireSession(ctx);
  if (!isOidcSession(session)) return session;
  const stored = await services.oidc.sessions.stored(session);
  ctx.state.session = stored;
  return stored;
}

export const noop = async (_ctx: ApiContext, next: Next) => next();
