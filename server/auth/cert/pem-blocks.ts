// Reads and writes PEM armour (RFC 7468). Strict about the base64 inside a block, lenient about text around
// blocks, because users paste the output of `openssl x509 -text` or a bundle with comments.

export interface PemBlock {
  readonly type: string;
  readonly der: Buffer;
}

/** PEM armour that is present but broken (unterminated, mismatched labels, bad base64). */
export class PemSyntaxError extends Error {
  override readonly name = 'PemSyntaxError';
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Every PEM block in order; an empty array when the text holds no armour at all. */
export function pemBlocks(text: string): PemBlock[] {
  const blocks: PemBlock[] = [];
  const beginLine = /-----BEGIN ([A-Z0-9][A-Z0-9 ]*)-----/g;
  for (let begin = beginLine.exec(text); begin; begin = beginLine.exec(text)) {
    const type = begin[1]!;
    const endMarker = `-----END ${type}-----`;
    const bodyStart = begin.index + begin[0].length;
    const bodyEnd = text.indexOf(endMarker, bodyStart);
    if (bodyEnd < 0) throw new PemSyntaxError(`the ${type} block has no "${endMarker}" line`);
    const body = text.slice(bodyStart, bodyEnd);
    if (body.includes('-----')) throw new PemSyntaxError(`the ${type} block is interrupted by another PEM marker`);
    // RFC 1421 headers (Proc-Type, DEK-Info) mean an encrypted key, never a certificate: refuse rather than skip.
    if (body.includes(':')) throw new PemSyntaxError(`the ${type} block carries headers, which certificates never do`);
    const base64 = body.replace(/\s+/g, '');
    if (base64.length === 0 || base64.length % 4 !== 0 || !BASE64.test(base64)) {
      throw new PemSyntaxError(`the ${type} block does not hold valid base64`);
    }
    blocks.push({ type, der: Buffer.from(base64, 'base64') });
    beginLine.lastIndex = bodyEnd + endMarker.length;
  }
  return blocks;
}

/** The DER of every CERTIFICATE block, skipping other block types. */
export function certificateDers(text: string): Buffer[] {
  return pemBlocks(text)
    .filter((block) => block.type === 'CERTIFICATE')
    .map((block) => block.der);
}

/** PEM text for one DER value, 64 base64 characters a line, ending with a newline. */
export function encodePem(type: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${type}-----\n${lines.join('\n')}\n-----END ${type}-----\n`;
}
