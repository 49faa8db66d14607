// End-to-end encryption of edge connections as OpenZiti does it (the fact sheet's §4), on libsodium through
// sodium-native, never a cipher of our own:
// - key exchange: crypto_kx. The dialer is the kx client, the host (an SDK's Bind, or a router-hosted terminator) the
//   server; public keys travel in header 1003 (Connect → Dial at the host; Bind/DialSuccess → StateConnected).
// - stream: crypto_secretstream_xchacha20poly1305, one per direction, keyed with that side's tx / the peer's rx. A
//   side's first Data in its direction is its 24-byte stream header, alone and in clear; each later Data body is
//   exactly one pushed message (plaintext + 17 bytes). Every push uses tag 0 (TAG_MESSAGE): never TAG_REKEY or
//   TAG_FINAL (the Go SDK cannot rekey); received tags are ignored; end of stream is the edge FIN flag.
// - a forged, truncated, reordered or replayed message fails authentication: StreamDecryptor throws E2eCryptoError
//   and refuses everything after it. The caller closes the connection.
//
// API: newKeyPair(), keyPairFromSeed(seed) → KxKeyPair; dialerSessionKeys(own, hostPublicKey) and
// hostSessionKeys(own, dialerPublicKey) → SessionKeys {rx, tx}; new StreamEncryptor(tx) (.header to send first,
// .encrypt(plain) or .encryptInto(plain, out)); new StreamDecryptor(rx) (.receive(body): undefined for the header,
// then the plaintext; or .decryptInto(cipher, out)); openE2eStreams(role, own, peerPublicKey) for both at once.
// Allocation: encrypt/receive allocate exactly the output buffer; encryptInto/decryptInto allocate nothing.
import sodium from 'sodium-native';

export const kxPublicKeyBytes = 32;
export const kxSecretKeyBytes = 32;
export const kxSeedBytes = 32;
export const sessionKeyBytes = 32;
/** The stream header each side sends, alone, as its first Data. */
export const streamHeaderBytes = 24;
/** Bytes a pushed message adds to its plaintext: 1 tag byte + a 16-byte Poly1305 MAC. */
export const streamOverheadBytes = 17;

const stateBytes = sodium.crypto_secretstream_xchacha20poly1305_STATEBYTES;
const tagMessage = sodium.crypto_secretstream_xchacha20poly1305_TAG_MESSAGE;

export type E2eCryptoErrorKind =
  /** A peer's public key is not 32 bytes, or a low-order point libsodium refuses. */
  | 'bad-public-key'
  /** The first Data of the direction is not the 24-byte header alone. */
  | 'bad-stream-header'
  /** A message shorter than the 17 bytes of overhead. */
  | 'truncated'
  /** A message failed authentication: forged, cut, reordered or replayed. */
  | 'forged'
  /** A decryptor that already failed: the connection must be closed. */
  | 'stream-failed';

export class E2eCryptoError extends Error {
  constructor(
    readonly kind: E2eCryptoErrorKind,
    detail: string,
  ) {
    super(`end-to-end encryption: ${detail}`);
    this.name = 'E2eCryptoError';
  }
}

export interface KxKeyPair {
  readonly publicKey: Buffer;
  readonly secretKey: Buffer;
}

/** A side's two session keys: rx opens what the peer sends, tx seals what this side sends. */
export interface SessionKeys {
  readonly rx: Buffer;
  readonly tx: Buffer;
}

/** A fresh X25519 key pair from libsodium's random source (one per dial or bind). */
export function newKeyPair(): KxKeyPair {
  const publicKey = Buffer.alloc(kxPublicKeyBytes);
  const secretKey = Buffer.alloc(kxSecretKeyBytes);
  sodium.crypto_kx_keypair(publicKey, secretKey);
  return { publicKey, secretKey };
}

/** The key pair of a 32-byte seed (crypto_kx_seed_keypair): deterministic, for tests and vectors. */
export function keyPairFromSeed(seed: Buffer): KxKeyPair {
  if (seed.length !== kxSeedBytes) throw new RangeError(`a kx seed is ${kxSeedBytes} bytes, not ${seed.length}`);
  const publicKey = Buffer.alloc(kxPublicKeyBytes);
  const secretKey = Buffer.alloc(kxSecretKeyBytes);
  sodium.crypto_kx_seed_keypair(publicKey, secretKey, seed);
  return { publicKey, secretKey };
}

type KxSide = 'client' | 'server';

function sessionKeys(side: KxSide, own: KxKeyPair, peerPublicKey: Buffer): SessionKeys {
  if (peerPublicKey.length !== kxPublicKeyBytes) throw new E2eCryptoError('bad-public-key', `a public key is ${kxPublicKeyBytes} bytes, not ${peerPublicKey.length}`);
  const rx = Buffer.alloc(sessionKeyBytes);
  const tx = Buffer.alloc(sessionKeyBytes);
  try {
    if (side === 'client') sodium.crypto_kx_client_session_keys(rx, tx, own.publicKey, own.secretKey, peerPublicKey);
    else sodium.crypto_kx_server_session_keys(rx, tx, own.publicKey, own.secretKey, peerPublicKey);
  } catch {
    throw new E2eCryptoError('bad-public-key', 'the peer public key is refused by the key exchange');
  }
  return { rx, tx };
}

/** The dialer's keys (crypto_kx client) with the host's public key from StateConnected's 1003. */
export const dialerSessionKeys = (own: KxKeyPair, hostPublicKey: Buffer): SessionKeys => sessionKeys('client', own, hostPublicKey);

/** The host's keys (crypto_kx server) with the dialer's public key from Dial's 1003 (or circuit peer data). */
export const hostSessionKeys = (own: KxKeyPair, dialerPublicKey: Buffer): SessionKeys => sessionKeys('server', own, dialerPublicKey);

function checkKey(key: Buffer): void {
  if (key.length !== sessionKeyBytes) throw new RangeError(`a session key is ${sessionKeyBytes} bytes, not ${key.length}`);
}

/** Seals one direction: `header` goes first as a Data of its own, then one encrypt() per Data body. */
export class StreamEncryptor {
  readonly header = Buffer.alloc(streamHeaderBytes);
  private readonly state = Buffer.alloc(stateBytes);

  constructor(txKey: Buffer) {
    checkKey(txKey);
    sodium.crypto_secretstream_xchacha20poly1305_init_push(this.state, this.header, txKey);
  }

  /** The body a plaintext of this length becomes. */
  static sealedLength(plainLength: number): number {
    return plainLength + streamOverheadBytes;
  }

  /** One Data body: `plain` sealed with tag 0 into a new buffer of exactly its size. */
  encrypt(plain: Uint8Array): Buffer {
    const out = Buffer.allocUnsafe(plain.length + streamOverheadBytes);
    this.encryptInto(plain, out);
    return out;
  }

  /** Seals `plain` into `out` (exactly plain.length + 17 bytes: a frame's body slice, say). */
  encryptInto(plain: Uint8Array, out: Uint8Array): void {
    if (out.length !== plain.length + streamOverheadBytes) throw new RangeError(`the output of ${plain.length} bytes sealed is ${plain.length + streamOverheadBytes} bytes, not ${out.length}`);
    sodium.crypto_secretstream_xchacha20poly1305_push(this.state, out, plain, null, tagMessage);
  }
}

/** Opens one direction: the first body must be the peer's 24-byte header, each later one a single sealed message. */
export class StreamDecryptor {
  private readonly state = Buffer.alloc(stateBytes);
  private readonly tag = Buffer.alloc(1);
  private headerSeen = false;
  private failed = false;

  constructor(private readonly rxKey: Buffer) {
    checkKey(rxKey);
  }

  /** True once the peer's header arrived: later bodies are messages. */
  get ready(): boolean {
    return this.headerSeen;
  }

  /** The plaintext this body carries; undefined for the header (the direction's first Data). */
  receive(body: Buffer): Buffer | undefined {
    if (!this.headerSeen) {
      this.acceptHeader(body);
      return undefined;
    }
    const out = Buffer.allocUnsafe(Math.max(0, body.length - streamOverheadBytes));
    this.decryptInto(body, out);
    return out;
  }

  /** Opens `cipher` into `out` (exactly cipher.length - 17 bytes), after the header. */
  decryptInto(cipher: Uint8Array, out: Uint8Array): void {
    if (this.failed) throw new E2eCryptoError('stream-failed', 'the stream already failed authentication; the connection must be closed');
    if (!this.headerSeen) throw new RangeError('a message before the stream header');
    if (cipher.length < streamOverheadBytes) return this.fail('truncated', `a message of ${cipher.length} bytes is shorter than the ${streamOverheadBytes}-byte overhead`);
    if (out.length !== cipher.length - streamOverheadBytes) throw new RangeError(`a message of ${cipher.length} bytes opens to ${cipher.length - streamOverheadBytes} bytes, not ${out.length}`);
    try {
      sodium.crypto_secretstream_xchacha20poly1305_pull(this.state, out, this.tag, cipher, null);
    } catch {
      this.fail('forged', 'a message failed authentication (forged, cut, reordered or replayed)');
    }
  }

  private acceptHeader(body: Buffer): void {
    if (this.failed) throw new E2eCryptoError('stream-failed', 'the stream already failed; the connection must be closed');
    if (body.length !== streamHeaderBytes) this.fail('bad-stream-header', `the first Data of an encrypted direction is the ${streamHeaderBytes}-byte stream header alone, not ${body.length} bytes`);
    sodium.crypto_secretstream_xchacha20poly1305_init_pull(this.state, body, this.rxKey);
    this.headerSeen = true;
  }

  private fail(kind: E2eCryptoErrorKind, detail: string): never {
    this.failed = true;
    throw new E2eCryptoError(kind, detail);
  }
}

export interface E2eStreams {
  /** Send `encryptor.header` as this side's first Data, then encrypt each body. */
  readonly encryptor: StreamEncryptor;
  /** Feed it every Data body from the peer, the header first. */
  readonly decryptor: StreamDecryptor;
}

/** Both directions of one connection for a side: the dialer (kx client) or the host (kx server). */
export function openE2eStreams(role: 'dialer' | 'host', own: KxKeyPair, peerPublicKey: Buffer): E2eStreams {
  const keys = role === 'dialer' ? dialerSessionKeys(own, peerPublicKey) : hostSessionKeys(own, peerPublicKey);
  const streams = { encryptor: new StreamEncryptor(keys.tx), decryptor: new StreamDecryptor(keys.rx) };
  // The streams hold what they need; the session keys are not kept around.
  sodium.sodium_memzero(keys.tx);
  return streams;
}
