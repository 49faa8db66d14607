// Koa, without its per-request watch for the end of the response where nothing would hear it. Koa's handleRequest
// attaches on-finished listeners to every response and its socket so that a failed send reaches ctx.onerror, which
// for a silent app (ours: errorHandler answers every error in the envelope) only emits an 'error' nobody logs.
// Attaching and detaching them was ~3% of a leader's samples under writes. The JSON, text and Buffer bodies the API
// sends are written here exactly as Koa writes them; any other response (empty statuses, HEAD, no body, streams,
// `ctx.respond = false`) goes through Koa's own handling, unchanged.
import Koa from 'koa';

type Handle = (ctx: Koa.ParameterizedContext, middleware: (ctx: Koa.ParameterizedContext) => Promise<unknown>) => Promise<unknown>;

const koaHandleRequest = (Koa.prototype as unknown as { handleRequest: Handle }).handleRequest;

/** Statuses whose responses carry no body (Koa strips it). */
const emptyStatuses = new Set([204, 205, 304]);

export class LeanKoa<State = Koa.DefaultState> extends Koa<State> {
  /** Called by Koa's callback() for every request. */
  handleRequest(ctx: Koa.ParameterizedContext, middleware: (ctx: Koa.ParameterizedContext) => Promise<unknown>): Promise<unknown> {
    ctx.res.statusCode = 404;
    return middleware(ctx)
      .then(() => {
        if (sendPlainBody(ctx)) return undefined;
        // Koa's handling starts by resetting the status to 404; the middleware already ran, so it is put back.
        const status = ctx.res.statusCode;
        return koaHandleRequest.call(this, ctx, () => {
          ctx.res.statusCode = status;
          return Promise.resolve();
        });
      })
      .catch((error: Error) => ctx.onerror(error));
  }
}

/** Writes a JSON, string or Buffer body as Koa would; false when the response is one of the kinds left to Koa. */
function sendPlainBody(ctx: Koa.ParameterizedContext): boolean {
  if (ctx.respond === false || !ctx.writable || ctx.method === 'HEAD' || emptyStatuses.has(ctx.status)) return false;
  const body: unknown = ctx.body;
  const res = ctx.res;
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    res.end(body);
    return true;
  }
  if (body === null || typeof body !== 'object') return false;
  const prototype = Object.getPrototypeOf(body);
  if (prototype !== Object.prototype && prototype !== null && !Array.isArray(body)) return false;
  const json = JSON.stringify(body);
  if (!res.headersSent) ctx.length = Buffer.byteLength(json);
  res.end(json);
  return true;
}
