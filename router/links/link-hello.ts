// The dialer's first frame on every link connection, `link.hello {routerId, linkId, connType}`. connType says what
// the connection carries: `single` (everything: a link of one connection, `split: false`), or one half of a split
// link (`split: true`), `payload` or `ack`, the two halves carrying the same linkId (as OpenZiti's router dials
// them). A hello without connType is `single`, so dialers from before split links still link.

import type { LinkHello } from '../../common/control-channel/control-messages.ts';
import { frameType } from './framed-socket.ts';

export type LinkConnType = 'single' | 'payload' | 'ack';

/** What a link is made of, as links are listed: one `single` connection, or a `payload` and an `ack` one. */
export type LinkShape = 'single' | 'split';

/** `link.hello` as dialers send it now (common's LinkHello plus the connection's role). */
export interface LinkHelloFrame extends LinkHello {
  readonly connType?: LinkConnType;
}

/** A well-formed hello, with connType filled in. */
export interface ParsedHello {
  readonly routerId: string;
  readonly linkId: string;
  readonly connType: LinkConnType;
}

const maxIdLength = 512;
const connTypes: readonly LinkConnType[] = ['single', 'payload', 'ack'];

/** The connections a dialer opens for one link, the payload one first. */
export function connTypesFor(split: boolean): readonly LinkConnType[] {
  return split ? ['payload', 'ack'] : ['single'];
}

export function shapeFor(split: boolean): LinkShape {
  return split ? 'split' : 'single';
}

export function linkHello(routerId: string, linkId: string, connType: LinkConnType): LinkHelloFrame {
  return { type: 'link.hello', routerId, linkId, connType };
}

/** The hello in `frame`, or undefined when it is not a valid one (wrong type, bad ids, unknown connType). */
export function parseLinkHello(frame: unknown): ParsedHello | undefined {
  if (frameType(frame) !== 'link.hello') return undefined;
  const { routerId, linkId, connType } = frame as { routerId?: unknown; linkId?: unknown; connType?: unknown };
  if (!isId(routerId) || !isId(linkId)) return undefined;
  if (connType === undefined) return { routerId, linkId, connType: 'single' };
  if (!connTypes.includes(connType as LinkConnType)) return undefined;
  return { routerId, linkId, connType: connType as LinkConnType };
}

function isId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= maxIdLength;
}
