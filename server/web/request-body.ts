// Reads a JSON request body with a size limit. Oversize → 413, malformed → 400 COULD_NOT_PARSE_BODY, a body of
// another media type → 415; an empty body (with or without Content-Type: application/json) reads as undefined.
import type { IncomingMessage } from 'node:http';
import { ApiError } from './api-error.ts';

/** Past this much unread body we stop reading and let the connection close instead. */
const maxDrainBytes = 64 * 1024 * 1024;

/**
 * The whole body, at most `limitBytes`. An oversize body is read to its end and discarded (up to a cap) before
 * the 413 goes out, so the client sees the answer rather than a reset connection.
 */
export function readRawBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const tooLarge = () => new ApiError('PAYLOAD_TOO_LARGE', { field: '(root)', reason: `request body exceeds ${limitBytes} bytes` });
  const declared = Number(req.headers['content-length']);
  return new Promise((resolve, reject) => {
    if (Number.isFinite(declared) && declared > maxDrainBytes) return reject(tooLarge());
    const chunks: Buffer[] = [];
    let size = 0;
    let oversize = Number.isFinite(declared) && declared > limitBytes;
    const finish = (error?: Error) => {
      req.removeListener('data', onData);
      req.removeListener('end', onEnd);
      req.removeListener('error', onError);
      if (error) reject(error);
      else if (oversize) reject(tooLarge());
      else resolve(Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxDrainBytes) return finish(tooLarge());
      if (size > limitBytes) oversize = true;
      if (!oversize) chunks.push(chunk);
    };
    const onEnd = () => finish();
    const onError = (error: Error) => finish(error);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
  });
}

export function parseJsonBody(raw: Buffer, contentType: string | undefined): unknown {
  const text = raw.toString('utf8');
  if (text.trim() === '') return undefined;
  const mediaType = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== '' && mediaType !== 'application/json' && !mediaType.endsWith('+json')) {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', { field: 'Content-Type', reason: 'expected application/json', value: mediaType });
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ApiError('COULD_NOT_PARSE_BODY', { code: 'COULD_NOT_PARSE_BODY', message: (error as Error).message });
  }
}
