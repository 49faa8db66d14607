// Every response leaves in an API envelope: EdgeErrors keep their code (status, message and headers from
// api-error.ts), anything else becomes a logged 500 UNHANDLED with the request id and no internals. Unknown routes
// are 404 NOT_FOUND; a request that runs past the deadline is answered 503 TIMEOUT. With tracing on, each request
// runs inside its server span.
import type { IncomingHttpHeaders } from 'node:http';
import type { Next } from 'koa';
import type { Logger } from '../../common/log/logger.ts';
import { EdgeError } from '../edge/edge-error.ts';
import { httpStatusOf, responseHeadersOf } from './api-error.ts';
import { errorEnvelope } from './envelope.ts';
import { matchedRoute } from './api-router.ts';
import type { ApiContext, MatchedRoute } from './koa-state.ts';
import { nextRequestId } from './request-id.ts';

export interface ErrorHandlerOptions {
  readonly logger: Logger;
  readonly serverHeader: string;
  readonly requestTimeoutMs: number;
  /** A path alias: the path to serve instead, or undefined to keep it. */
  readonly rewritePath?: (path: string) => string | undefined;
  /** Called once per request with its (original) path, method, matched route (none: no route matched), final status and duration. */
  readonly observe?: (path: string, method: string, route: MatchedRoute | undefined, status: number, seconds: number) => void;
  /** Set only when tracing is on (telemetry/controller-tracing.ts): unset, no span is made. */
  readonly tracing?: RequestTracing;
}

/** Starts a request's server span (undefined: this request is not traced); the handlers run inside it, and it
 * ends named after the matched route. */
export interface RequestTracing {
  startRequest(method: string, path: string, headers: IncomingHttpHeaders, requestId: string):
    | {
        run(work: () => Promise<void>): Promise<void>;
        end(route: string | undefined, status: number): void;
      }
    | undefined;
}

export function errorHandler(options: ErrorHandlerOptions) {
  const deadlines = new DeadlineWatch(options.requestTimeoutMs);
  const tracing = options.tracing;
  return async (ctx: ApiContext, next: Next): Promise<void> => {
    const started = performance.now();
    const path = ctx.path;
    const requestId = nextRequestId();
    ctx.state.requestId = requestId;
    ctx.set('server', options.serverHeader);
    const alias = options.rewritePath?.(path);
    if (alias !== undefined) ctx.path = alias;
    const deadline = deadlines.start(ctx, requestId);
    const traced = tracing === undefined ? undefined : tracing.startRequest(ctx.method, path, ctx.headers, requestId);
    try {
      await (traced === undefined ? next() : traced.run(next));
      if (ctx.status === 404 && ctx.body === undefined) throw new EdgeError('NOT_FOUND');
    } catch (thrown) {
      const error = toEdgeError(thrown);
      if (error.code === 'UNHANDLED') {
        options.logger.error('unhandled error serving request', { requestId, method: ctx.method, path: ctx.path, error: thrown });
      } else if (error.internal !== undefined) {
        options.logger.info('request refused', { requestId, code: error.code, method: ctx.method, path: ctx.path, cause: String(error.internal) });
      }
      ctx.status = httpStatusOf(error);
      ctx.body = errorEnvelope(error, requestId);
      for (const [name, value] of Object.entries(responseHeadersOf(error))) ctx.set(name, value);
    } finally {
      deadlines.finish(deadline);
      const route = matchedRoute(ctx);
      options.observe?.(path, ctx.method, route, ctx.status, (performance.now() - started) / 1000);
      traced?.end(route?.template, ctx.status);
    }
  };
}

interface Deadline {
  readonly at: number;
  readonly ctx: ApiContext;
  readonly requestId: string;
}

/**
 * Request deadlines on one shared, coarse timer instead of a timer and a promise per request: the hot path only
 * adds to and removes from a set. An overdue request is answered 503 TIMEOUT directly, within a second of its
 * deadline; whatever the handler does afterwards is not sent, because the response has ended.
 */
class DeadlineWatch {
  private readonly running = new Set<Deadline>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly timeoutMs: number) {}

  start(ctx: ApiContext, requestId: string): Deadline {
    const deadline: Deadline = { at: performance.now() + this.timeoutMs, ctx, requestId };
    this.running.add(deadline);
    if (!this.timer) {
      this.timer = setInterval(() => this.sweep(), Math.min(1000, this.timeoutMs));
      this.timer.unref();
    }
    return deadline;
  }

  finish(deadline: Deadline): void {
    this.running.delete(deadline);
  }

  private sweep(): void {
    const now = performance.now();
    for (const deadline of this.running) {
      if (deadline.at > now) continue;
      this.running.delete(deadline);
      const { res } = deadline.ctx;
      if (res.headersSent || res.writableEnded) continue;
      const error = new EdgeError('TIMEOUT');
      const body = JSON.stringify(errorEnvelope(error, deadline.requestId));
      res.writeHead(httpStatusOf(error), { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    }
  }
}

function toEdgeError(thrown: unknown): EdgeError {
  if (thrown instanceof EdgeError) return thrown;
  const status = (thrown as { status?: number; statusCode?: number })?.status ?? (thrown as { statusCode?: number })?.statusCode;
  if (status === 405 || status === 501) return new EdgeError('METHOD_NOT_ALLOWED');
  if (status === 404) return new EdgeError('NOT_FOUND');
  return new EdgeError('UNHANDLED', undefined, thrown);
}
