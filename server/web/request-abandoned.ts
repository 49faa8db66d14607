// A signal that a request was abandoned: its response ended before the handler answered (the deadline's 503
// TIMEOUT, error-handler.ts) or its connection closed (the client went away). Work still waiting on its behalf, such
// as a queued password hash, can then be dropped instead of done for nobody.
import type { ApiContext } from './koa-state.ts';

export function abandonedSignal(ctx: ApiContext): AbortSignal {
  const controller = new AbortController();
  const { req, res } = ctx;
  if (res.writableEnded || req.socket.destroyed) controller.abort();
  // 'close' also comes once the handler's own answer is sent; by then nothing waits on the signal.
  else res.once('close', () => controller.abort());
  return controller.signal;
}

/** The client's address as the API reports it: IPv4 without its IPv6-mapped prefix. */
export function clientAddress(ctx: ApiContext): string {
  return ctx.request.ip.replace(/^::ffff:/, '');
}
