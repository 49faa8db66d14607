// A local pager: an HTTP server that takes Alertmanager's webhook notifications and appends every alert of each to
// a JSON-lines log, for the demo and the end-to-end tests to read what would have paged someone. It refuses what
// is not a notification (405, 415, 400, 413) and goes on serving. It is a loopback service: bound to loopback it
// answers 421 to a `Host` that is not its own (a web page rebinding its DNS name to 127.0.0.1 cannot post to it),
// and its log is capped: past `maxLogBytes` the file is renamed to `<log>.1` (replacing the one before) and a new
// one begun, so a flood of notifications holds at most twice the cap on disk.
import { appendFile, rename, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostHeaderCheck, misdirectedStatus } from '../../common/http/loopback-host.ts';
import { jsonTextShapeProblem } from '../../common/json/json-shape.ts';
import { pagerLogLines, parseNotification } from './webhook-payload.ts';

/** A notification carries every alert of one group; a megabyte holds hundreds of them. */
export const defaultMaxBodyBytes = 1024 * 1024;
/** The log is rotated once it would pass this size (about 20 000 alert lines). */
export const defaultMaxLogBytes = 16 * 1024 * 1024;
/** A notification nests four levels deep (alerts, an alert, its labels); anything far deeper is not one. */
const shapeLimits = { maxDepth: 16, maxMembers: 200_000 };

export interface PagerServerOptions {
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  readonly logFile: string;
  readonly maxBodyBytes?: number;
  /** The log's size cap: past it the log is renamed to `<logFile>.1` and begun again. */
  readonly maxLogBytes?: number;
  readonly now?: () => Date;
  /** Told when the log cannot be written (the notification is answered 500, so Alertmanager retries it). */
  readonly onWriteError?: (error: Error) => void;
}

export interface PagerServer {
  readonly host: string;
  readonly port: number;
  close(): Promise<void>;
}

function answer(response: ServerResponse, status: number, body: Record<string, unknown>, headers: Record<string, string> = {}): void {
  if (response.headersSent) return;
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(`${JSON.stringify(body)}\n`);
}

/** Reads the body up to `limit` bytes; undefined when it is larger (the answer 413 is then sent). */
function readBody(request: IncomingMessage, response: ServerResponse, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const refuse = () => {
      // Stop reading and drop the connection once the answer is out: the rest of the body is not wanted.
      answer(response, 413, { error: `the body is larger than ${limit} bytes` }, { connection: 'close' });
      response.once('finish', () => request.destroy());
      resolve(undefined);
    };
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) return refuse();
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    request.on('data', (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > limit) {
        refused = true;
        request.pause();
        refuse();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      if (!refused) resolve(Buffer.concat(chunks));
    });
    request.on('error', (error) => {
      if (!refused) reject(error);
    });
  });
}

export function startPagerServer(options: PagerServerOptions): Promise<PagerServer> {
  const limit = options.maxBodyBytes ?? defaultMaxBodyBytes;
  const maxLogBytes = options.maxLogBytes ?? defaultMaxLogBytes;
  const now = options.now ?? (() => new Date());
  let hostAllowed: (host: string | undefined) => boolean = () => false;
  // Appends run one after another, so the lines of two notifications never interleave.
  let writes: Promise<void> = Promise.resolve();
  const rotateIfFull = async (adding: number): Promise<void> => {
    const size = await stat(options.logFile).then(
      (info) => info.size,
      () => 0,
    );
    if (size > 0 && size + adding > maxLogBytes) await rename(options.logFile, `${options.logFile}.1`);
  };
  const append = (text: string): Promise<void> => {
    const write = writes.then(async () => {
      await rotateIfFull(Buffer.byteLength(text));
      await appendFile(options.logFile, text, { mode: 0o640 });
    });
    writes = write.catch(() => undefined);
    return write;
  };

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (!hostAllowed(request.headers.host)) {
      request.resume();
      return answer(response, misdirectedStatus, { error: 'this pager answers only for its own address (Host)' });
    }
    const path = (request.url ?? '/').split('?')[0];
    if (path === '/health') {
      if (request.method === 'GET' || request.method === 'HEAD') return answer(response, 200, { status: 'ok' });
      return answer(response, 405, { error: 'use GET' }, { allow: 'GET, HEAD' });
    }
    if (request.method !== 'POST') {
      request.resume();
      return answer(response, 405, { error: 'post Alertmanager webhook notifications here' }, { allow: 'POST' });
    }
    if (!/^application\/json\s*(;|$)/i.test(request.headers['content-type'] ?? '')) {
      request.resume();
      return answer(response, 415, { error: 'send notifications as application/json' }, { accept: 'application/json' });
    }
    const body = await readBody(request, response, limit);
    if (body === undefined) return;
    const text = body.toString('utf8');
    const shape = jsonTextShapeProblem(text, shapeLimits);
    if (shape) return answer(response, 400, { error: `not a notification: ${shape.reason}` });
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return answer(response, 400, { error: 'the body is not JSON' });
    }
    const parsed = parseNotification(value);
    if (!parsed.ok) return answer(response, 400, { error: `not an Alertmanager notification: ${parsed.reason}` });
    const lines = pagerLogLines(parsed.notification, now());
    try {
      if (lines !== '') await append(lines);
    } catch (error) {
      options.onWriteError?.(error as Error);
      return answer(response, 500, { error: 'the pager log could not be written' });
    }
    answer(response, 200, { status: 'ok', alerts: parsed.notification.alerts.length });
  }

  const server = createServer({ requestTimeout: 30_000, headersTimeout: 10_000 }, (request, response) => {
    handle(request, response).catch(() => answer(response, 500, { error: 'the notification could not be handled' }));
  });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      hostAllowed = hostHeaderCheck(options.host, address.port, 80);
      resolve({
        host: address.address,
        port: address.port,
        close: async () => {
          await new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          });
          // A notification being written when the server closed still reaches the log.
          await writes;
        },
      });
    });
  });
}
