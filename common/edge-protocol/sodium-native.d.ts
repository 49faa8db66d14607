// The part of sodium-native (libsodium bindings, no types of its own) that edgeward uses: crypto_kx and
// crypto_secretstream_xchacha20poly1305, for the edge protocol's end-to-end encryption (e2e-crypto.ts). Every
// function throws a plain Error on a libsodium failure or a wrong buffer size; e2e-crypto.ts turns those into its own.
declare module 'sodium-native' {
  type Bytes = Uint8Array;
  interface SodiumNative {
    readonly crypto_kx_PUBLICKEYBYTES: number;
    readonly crypto_kx_SECRETKEYBYTES: number;
    readonly crypto_kx_SEEDBYTES: number;
    readonly crypto_kx_SESSIONKEYBYTES: number;
    crypto_kx_keypair(publicKey: Bytes, secretKey: Bytes): void;
    crypto_kx_seed_keypair(publicKey: Bytes, secretKey: Bytes, seed: Bytes): void;
    crypto_kx_client_session_keys(rx: Bytes, tx: Bytes, clientPublicKey: Bytes, clientSecretKey: Bytes, serverPublicKey: Bytes): void;
    crypto_kx_server_session_keys(rx: Bytes, tx: Bytes, serverPublicKey: Bytes, serverSecretKey: Bytes, clientPublicKey: Bytes): void;

    readonly crypto_secretstream_xchacha20poly1305_STATEBYTES: number;
    readonly crypto_secretstream_xchacha20poly1305_ABYTES: number;
    readonly crypto_secretstream_xchacha20poly1305_HEADERBYTES: number;
    readonly crypto_secretstream_xchacha20poly1305_KEYBYTES: number;
    readonly crypto_secretstream_xchacha20poly1305_TAG_MESSAGE: number;
    readonly crypto_secretstream_xchacha20poly1305_TAG_PUSH: number;
    readonly crypto_secretstream_xchacha20poly1305_TAG_REKEY: number;
    readonly crypto_secretstream_xchacha20poly1305_TAG_FINAL: number;
    crypto_secretstream_xchacha20poly1305_init_push(state: Bytes, header: Bytes, key: Bytes): void;
    crypto_secretstream_xchacha20poly1305_init_pull(state: Bytes, header: Bytes, key: Bytes): void;
    /** Encrypts `message` into `ciphertext` (message length + ABYTES); returns the bytes written. */
    crypto_secretstream_xchacha20poly1305_push(state: Bytes, ciphertext: Bytes, message: Bytes, additionalData: Bytes | null, tag: number): number;
    /** Decrypts `ciphertext` into `message` (ciphertext length - ABYTES) and its tag into `tag` (1 byte); throws when forged. */
    crypto_secretstream_xchacha20poly1305_pull(state: Bytes, message: Bytes, tag: Bytes, ciphertext: Bytes, additionalData: Bytes | null): number;

    sodium_memzero(buffer: Bytes): void;
  }
  const sodium: SodiumNative;
  export default sodium;
}
