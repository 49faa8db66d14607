// The few DNS messages the tproxy nameserver speaks (RFC 1035): a standard query with one question in, an answer
// with A records, or an empty answer (NODATA), or NXDOMAIN / REFUSED / FORMERR out. Names are compared in lower case.
// Anything that is not a well-formed query is dropped, never answered from a half-read message. Pure.

export const dnsTypes = { A: 1, AAAA: 28 } as const;
export const dnsRcodes = { NOERROR: 0, FORMERR: 1, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;

export interface DnsQuestion {
  readonly name: string;
  readonly type: number;
  readonly klass: number;
}

export interface DnsQuery {
  readonly id: number;
  /** The query's RD bit, echoed in the answer. */
  readonly recursionDesired: boolean;
  readonly opcode: number;
  readonly question: DnsQuestion;
  /** The question section as it was sent, echoed in the answer. */
  readonly questionBytes: Buffer;
}

const maxNameLength = 255;

/** A query with exactly one question, or undefined for anything else (a response, truncated, compressed names, ...). */
export function parseDnsQuery(message: Buffer): DnsQuery | undefined {
  if (message.length < 12 || message.length > 512) return undefined;
  const id = message.readUInt16BE(0);
  const flags = message.readUInt16BE(2);
  if (flags & 0x8000) return undefined; // a response
  const opcode = (flags >> 11) & 0xf;
  if (message.readUInt16BE(4) !== 1 || message.readUInt16BE(6) !== 0 || message.readUInt16BE(8) !== 0) return undefined;
  const labels: string[] = [];
  let offset = 12;
  let length = 0;
  for (;;) {
    if (offset >= message.length) return undefined;
    const size = message[offset]!;
    offset++;
    if (size === 0) break;
    if (size > 63) return undefined; // compression pointers have no place in a question
    if (offset + size > message.length) return undefined;
    length += size + 1;
    if (length > maxNameLength) return undefined;
    labels.push(message.toString('latin1', offset, offset + size).toLowerCase());
    offset += size;
  }
  if (offset + 4 > message.length) return undefined;
  const type = message.readUInt16BE(offset);
  const klass = message.readUInt16BE(offset + 2);
  offset += 4;
  return { id, recursionDesired: (flags & 0x0100) !== 0, opcode, question: { name: labels.join('.'), type, klass }, questionBytes: message.subarray(12, offset) };
}

/** The answer to `query`: `rcode`, and one A record per address (TTL in seconds). */
export function dnsAnswer(query: DnsQuery, rcode: number, addresses: readonly string[] = [], ttlSeconds = 60): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.id, 0);
  // QR, the query's opcode, AA, its RD; RA 0 (no recursion here).
  header.writeUInt16BE(0x8000 | (query.opcode << 11) | 0x0400 | (query.recursionDesired ? 0x0100 : 0) | (rcode & 0xf), 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(addresses.length, 6);
  const records = addresses.map((address) => {
    const record = Buffer.alloc(16);
    record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    record.writeUInt16BE(dnsTypes.A, 2);
    record.writeUInt16BE(1, 4); // IN
    record.writeUInt32BE(ttlSeconds, 6);
    record.writeUInt16BE(4, 10);
    address.split('.').forEach((part, index) => record.writeUInt8(Number(part), 12 + index));
    return record;
  });
  return Buffer.concat([header, query.questionBytes, ...records]);
}

/** FORMERR for a message that has at least a header (its id), else nothing. */
export function dnsFormatError(message: Buffer): Buffer | undefined {
  if (message.length < 12 || message.readUInt16BE(2) & 0x8000) return undefined;
  const header = Buffer.alloc(12);
  header.writeUInt16BE(message.readUInt16BE(0), 0);
  header.writeUInt16BE(0x8000 | dnsRcodes.FORMERR, 2);
  return header;
}
