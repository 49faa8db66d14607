// The encrypted path's Data frame in one allocation: the frame's prefix and headers as buildMessage.data writes them,
// and the plaintext sealed straight into the frame's body (StreamEncryptor.encryptInto), instead of sealing into a
// buffer of its own and copying that into the frame. The bytes are those of
// encodeEdgeMessage(buildMessage.data({ ..., payload: encryptor.encrypt(plain) })).
import type { StreamEncryptor } from './e2e-crypto.ts';
import { streamOverheadBytes } from './e2e-crypto.ts';
import { encodeEdgeMessage } from './edge-frame-codec.ts';
import { buildMessage } from './edge-messages.ts';

/** Offset of the body-length field in a frame's 20-byte prefix (edge-frame-codec.ts). */
const bodyLengthOffset = 16;

/** One encoded Data frame carrying `plain` sealed by `encryptor` (the next message of its stream). */
export function encodeSealedDataFrame(fields: { sequence: number; connId: number; flags?: number; seq?: number }, plain: Uint8Array, encryptor: StreamEncryptor): Buffer {
  const head = encodeEdgeMessage(buildMessage.data({ ...fields, payload: Buffer.alloc(0) }));
  const sealedBytes = plain.length + streamOverheadBytes;
  const frame = Buffer.allocUnsafe(head.length + sealedBytes);
  head.copy(frame, 0);
  frame.writeUInt32LE(sealedBytes, bodyLengthOffset);
  encryptor.encryptInto(plain, frame.subarray(head.length));
  return frame;
}
