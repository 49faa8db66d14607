// Every response leaves in an API envelope: ApiErrors keep their status and code, anything else becomes a logged
// 500 UNHANDLED with the request id and no internals. Unknown routes are 404 NOT_FOUND; a request that runs past
// the deadline is answered 503 TIMEOUT.
import type { Next } from 'koa';
import type { Logger } from '../../common/log/logger.ts';
import { ApiError } from './api-error.ts';
import { errorEnvelope } from './envelope.ts';
import type { ApiContext } from './koa-state.ts';
import { nextRequestId } from './request-id.ts';

export interface ErrorHandlerOptions {
  readonly logger: Logger;
  readonly serverHeader: string;
  readonly requestTimeoutMs: number;
}

export function errorHandler(options: ErrorHandlerOptions) {
  return async (ctx: ApiContext, next: Next): Promise<void> => {
    const requestId = nextRequestId();
    ctx.state.requestId = requestId;
    ctx.set('server', options.serverHeader);
    let timer: NodeJS.Timeout | undefined;
    try {
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new ApiError('TIMEOUT')), options.requestTimeoutMs);
        timer.unref();
      });
      await Promise.race([next(), deadline]);
      if (ctx.status === 404 && ctx.body === undefined) throw new ApiError('NOT_FOUND');
    } catch (thrown) {
      const error = toApiError(thrown);
      if (error.code === 'UNHANDLED') {
        options.logger.error('unhandled error serving request', { requestId, method: ctx.method, path: ctx.path, error: thrown });
      } else if (error.internal !== undefined) {
        options.logger.info('request refused', { requestId, code: error.code, method: ctx.method, path: ctx.path, cause: String(error.internal) });
      }
      ctx.status = error.status;
      ctx.body = errorEnvelope(error, requestId);
      if (error.headers) for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
    } finally {
      clearTimeout(timer);
    }
  };
}

function toApiError(thrown: unknown): ApiError {
  if (thrown instanceof ApiError) return thrown;
  const status = (thrown as { status?: number; statusCode?: number })?.status ?? (thrown as { statusCode?: number })?.statusCode;
  if (status === 405 || status === 501) return new ApiError('METHOD_NOT_ALLOWED');
  if (status === 404) return new ApiError('NOT_FOUND');
  return new ApiError('UNHANDLED', undefined, thrown);
}
