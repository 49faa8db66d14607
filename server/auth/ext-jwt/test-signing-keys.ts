// Test support: an external issuer's signing keys (with a certificate, as an admin would register) and tokens
// signed with them.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, SignJWT, type JWK, type JWTPayload } from 'jose';
import { opensslOk } from '../../../common/pki/openssl-cli.ts';

export type TestKeyKind = 'rsa' | 'ec' | 'ed25519';

export interface TestSigningKey {
  readonly kid: string;
  readonly alg: string;
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  /** A self-signed certificate carrying the public key. */
  readonly certPem: string;
  /** The public key as published in a JWKS. */
  readonly jwk: JWK;
}

const algByKind: Record<TestKeyKind, string> = { rsa: 'RS256', ec: 'ES256', ed25519: 'EdDSA' };

export async function makeSigningKey(kind: TestKeyKind, kid: string): Promise<TestSigningKey> {
  const { privateKey, publicKey } =
    kind === 'rsa'
      ? generateKeyPairSync('rsa', { modulusLength: 2048 })
      : kind === 'ec'
        ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
        : generateKeyPairSync('ed25519');
  const alg = algByKind[kind];
  const jwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { kid, alg, privateKey, publicKey, certPem: selfSignedCertificate(privateKey, kid), jwk };
}

function selfSignedCertificate(privateKey: KeyObject, commonName: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'ext-jwt-signer-'));
  try {
    writeFileSync(join(dir, 'key.pem'), privateKey.export({ type: 'pkcs8', format: 'pem' }));
    opensslOk(['req', '-x509', '-key', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-subj', `/CN=${commonName}`, '-days', '1']);
    return readFileSync(join(dir, 'cert.pem'), 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface TokenOptions {
  /** Header overrides; `kid: undefined` leaves the kid out. */
  readonly header?: { alg?: string; kid?: string | undefined; [name: string]: unknown };
}

export function signToken(key: TestSigningKey, claims: JWTPayload, options: TokenOptions = {}): Promise<string> {
  const header: Record<string, unknown> = { alg: key.alg, kid: key.kid, ...options.header };
  if (header.kid === undefined) delete header.kid;
  return new SignJWT(claims).setProtectedHeader(header as { alg: string }).sign(key.privateKey);
}

export function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
