// Per-request ids: a random per-process prefix plus a counter. Unique and cheap: no entropy drawn per request.
import { randomBytes } from 'node:crypto';

const prefix = randomBytes(4).toString('base64url').replace(/[-_]/g, 'x');
let counter = 0;

export function nextRequestId(): string {
  counter = (counter + 1) % 0x7fffffff;
  return `${prefix}${counter.toString(36)}`;
}
