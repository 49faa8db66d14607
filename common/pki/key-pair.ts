// ECDSA P-256 keys: generated with WebCrypto, stored as PKCS#8 "PRIVATE KEY" PEM (the form Node's tls accepts).
import { createPrivateKey, createPublicKey, webcrypto } from 'node:crypto';
import { PkiError } from './pki-error.ts';
import { ecdsaP256, x509 } from './x509-runtime.ts';

export async function generateKeyPair(): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(ecdsaP256, true, ['sign', 'verify'])) as CryptoKeyPair;
}

export async function privateKeyToPem(privateKey: CryptoKey): Promise<string> {
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', privateKey);
  return `${x509.PemConverter.encode(pkcs8, 'PRIVATE KEY').trim()}\n`;
}

export interface SigningKey {
  privateKey: CryptoKey;
  /** DER SubjectPublicKeyInfo of the matching public key, to check the key belongs to a certificate. */
  publicKeyDer: Uint8Array;
}

/** Loads a P-256 private key from PEM (PKCS#8 or SEC1, as an operator might supply either). */
export async function loadSigningKey(keyPem: string, what = 'private key'): Promise<SigningKey> {
  let keyObject;
  try {
    keyObject = createPrivateKey({ key: keyPem, format: 'pem' });
  } catch (cause) {
    throw new PkiError('INVALID_KEY', `${what} is not a PEM private key`, { cause });
  }
  if (keyObject.asymmetricKeyType !== 'ec' || keyObject.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new PkiError('INVALID_KEY', `${what} is not an ECDSA P-256 key`);
  }
  const pkcs8 = keyObject.export({ type: 'pkcs8', format: 'der' });
  const privateKey = await webcrypto.subtle.importKey('pkcs8', pkcs8, ecdsaP256, false, ['sign']);
  const publicKeyDer = createPublicKey(keyObject).export({ type: 'spki', format: 'der' });
  return { privateKey, publicKeyDer: new Uint8Array(publicKeyDer) };
}
