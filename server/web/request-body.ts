// Reads a JSON request body with a size limit. Oversize → 413, nested too deep or holding too many keys and items
// → 400 INVALID_FIELD (checked on the text, before parsing), malformed → 400 COULD_NOT_PARSE_BODY, a body of another
// media type → 415; an empty body (with or without Content-Type: application/json) reads as undefined.
import type { IncomingMessage } from 'node:http';
import { formatKeyPath, type KeyPath } from '../../common/config/key-path.ts';
import { jsonTextShapeProblem } from '../../common/json/json-shape.ts';
import { EdgeError } from '../edge/edge-error.ts';
import { bodyShapeLimits } from './body-shape-limits.ts';

/** Past this much unread body we stop reading and let the connection close instead. */
const maxDrainBytes = 64 * 1024 * 1024;

const tooLarge = (limitBytes: number) => new EdgeError('PAYLOAD_TOO_LARGE', { field: '(root)', reason: `request body exceeds ${limitBytes} bytes` });

/** The body stopped before its end because the connection went (the client left, or the server's requestTimeout
 * closed it): a refusal like any other bad body, not a server fault. Nobody is left to read the answer. */
const cutOff = () =>
  new EdgeError('COULD_NOT_PARSE_BODY', { field: '(root)', reason: 'the connection closed before the request body was complete' }, 'request body cut off: connection closed');

/** A body being read: kept on the request under a symbol so the listeners are module functions, not closures made
 * per request (each named closure costs a defineProperty under tsx's keepNames, 3-4% of a leader's CPU on writes). */
interface BodyRead {
  readonly limitBytes: number;
  readonly chunks: Buffer[];
  size: number;
  oversize: boolean;
  readonly resolve: (body: Buffer) => void;
  readonly reject: (error: Error) => void;
}

const bodyRead = Symbol('body read');
type ReadingRequest = IncomingMessage & { [bodyRead]?: BodyRead };

function finishBody(req: ReadingRequest, error?: Error): void {
  const read = req[bodyRead];
  if (!read) return;
  req[bodyRead] = undefined;
  req.removeListener('data', onBodyData);
  req.removeListener('end', onBodyEnd);
  req.removeListener('error', onBodyError);
  req.removeListener('close', onBodyClose);
  if (error) read.reject(error);
  else if (read.oversize) read.reject(tooLarge(read.limitBytes));
  else read.resolve(Buffer.concat(read.chunks, read.size));
}

function onBodyData(this: ReadingRequest, chunk: Buffer): void {
  const read = this[bodyRead];
  if (!read) return;
  read.size += chunk.length;
  if (read.size > maxDrainBytes) return finishBody(this, tooLarge(read.limitBytes));
  if (read.size > read.limitBytes) read.oversize = true;
  if (!read.oversize) read.chunks.push(chunk);
}

function onBodyEnd(this: ReadingRequest): void {
  finishBody(this);
}

function onBodyError(this: ReadingRequest, error: Error): void {
  // Node names a request whose connection closed mid-body `aborted` (code ECONNRESET).
  finishBody(this, (error as NodeJS.ErrnoException).code === 'ECONNRESET' ? cutOff() : error);
}

/** A close before the end: when the connection goes without an error event (no 'end' will follow). */
function onBodyClose(this: ReadingRequest): void {
  finishBody(this, cutOff());
}

/**
 * The whole body, at most `limitBytes`. An oversize body is read to its end and discarded (up to a cap) before
 * the 413 goes out, so the client sees the answer rather than a reset connection.
 */
export function readRawBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  return new Promise((resolve, reject) => {
    if (Number.isFinite(declared) && declared > maxDrainBytes) return reject(tooLarge(limitBytes));
    // Gone before anyone read it (the handler awaited something first): no event will come.
    if (req.destroyed) return reject(cutOff());
    const reading = req as ReadingRequest;
    reading[bodyRead] = { limitBytes, chunks: [], size: 0, oversize: Number.isFinite(declared) && declared > limitBytes, resolve, reject };
    reading.on('data', onBodyData);
    reading.once('end', onBodyEnd);
    reading.once('error', onBodyError);
    reading.once('close', onBodyClose);
  });
}

export function parseJsonBody(raw: Buffer, contentType: string | undefined): unknown {
  const text = raw.toString('utf8');
  if (text.trim() === '') return undefined;
  const mediaType = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== '' && mediaType !== 'application/json' && !mediaType.endsWith('+json')) {
    throw new EdgeError('UNSUPPORTED_MEDIA_TYPE', { field: 'Content-Type', reason: 'expected application/json', value: mediaType });
  }
  // The structure is judged on the text: a value that is never parsed cannot reach anything that recurses over it.
  const problem = jsonTextShapeProblem(text, bodyShapeLimits);
  if (problem) throw new EdgeError('INVALID_FIELD', { field: fieldOf(problem.path), reason: `the request body ${problem.reason}` });
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new EdgeError('COULD_NOT_PARSE_BODY', { code: 'COULD_NOT_PARSE_BODY', message: parseFailure((error as Error).message) });
  }
}

/** V8 quotes the text around an unexpected token (`..."password":hunter22}" is not valid JSON`): such a message
 * could send a password back, so it is replaced by one that does not quote; the others name only a position. */
function parseFailure(message: string): string {
  return message.includes('"') || message.startsWith('Unexpected token') ? 'Unexpected token in JSON' : message;
}

/** Keys are the client's own text: each is clipped, so a megabyte-long key is not sent back whole. */
const maxKeyEcho = 64;

function fieldOf(path: KeyPath): string {
  const clipped = path.map((segment) => (typeof segment === 'string' && segment.length > maxKeyEcho ? `${segment.slice(0, maxKeyEcho)}...` : segment));
  return clipped.length === 0 ? '(root)' : formatKeyPath(clipped);
}
