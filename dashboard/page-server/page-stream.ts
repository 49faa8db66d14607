// GET /api/stream: the page's one subscription, as server-sent events: the snapshot and history first, then each new
// gather. Bounded in number and in output queued for a slow reader; a logged-out session's stream ends.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PageContext } from './page-context.ts';
import { cookieValue, sendJson } from './page-http.ts';

/** Open /api/stream connections at most; more get 503. */
export const maxStreams = 256;
/** A stream whose client reads slower than this much queued output is closed. */
const maxQueuedStreamBytes = 8 * 1024 * 1024;

export function openStream(context: PageContext, req: IncomingMessage, res: ServerResponse): void {
  const { deps, streams } = context;
  const first = deps.gatherer.resetMessageJson();
  if (streams.size >= maxStreams || first === undefined) {
    sendJson(res, 503, { error: first === undefined ? 'the first gather has not finished yet' : 'too many open streams' }, { 'retry-after': '2' });
    return;
  }
  const cookie = cookieValue(req.headers.cookie, context.cookieName);
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive', 'x-accel-buffering': 'no' });
  res.write(`retry: 2000\nevent: snapshot\ndata: ${first}\n\n`);
  streams.add(res);
  const unsubscribe = deps.gatherer.subscribe((gathered) => {
    // An open page is a page in use: each message counts as activity; a session that ended closes its stream.
    if (context.loginRequired && deps.sessions.lookup(cookie) === undefined) {
      res.end('event: logged-out\ndata: {}\n\n');
      return;
    }
    if (res.writableLength > maxQueuedStreamBytes) {
      res.destroy();
      return;
    }
    res.write(gathered.streamEvent);
  });
  const done = () => {
    unsubscribe();
    streams.delete(res);
  };
  res.on('close', done);
  req.on('close', done);
}
