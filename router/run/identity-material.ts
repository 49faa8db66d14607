// The router's identity as PEM texts: `cert`, `key`, `server_cert`, `server_key` and `ca` from the identity section
// (files, or inline `pem:` values), checked to belong together. The router's id is its certificate's common name.

import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { identitySourceKind } from '../config/identity-source.ts';
import type { IdentityConfig } from '../config/router-config.ts';

export interface IdentityMaterial {
  readonly routerId: string;
  readonly certPem: string;
  readonly keyPem: string;
  readonly serverCertPem: string;
  readonly serverKeyPem: string;
  readonly caPem: string;
}

export class IdentityError extends Error {}

/** Reads one identity value: a file's text, or the PEM after `pem:`. */
export async function readIdentityValue(value: string, key: string): Promise<string> {
  const kind = identitySourceKind(value);
  if (kind === 'pem') return value.slice('pem:'.length);
  if (kind === 'engine') throw new IdentityError(`${key}: hardware key engines ("${value.split(':')[0]}:") are not supported by edgeward; use a file or pem: value`);
  try {
    return await readFile(value, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new IdentityError(code === 'ENOENT' ? `${key}: file "${value}" does not exist` : `${key}: cannot read "${value}": ${(error as Error).message}`);
  }
}

export async function loadIdentity(identity: IdentityConfig, at = 'identity'): Promise<IdentityMaterial> {
  if (identity.ca === undefined) throw new IdentityError(`${at}.ca is not set: the router cannot verify its controllers without the CA bundle`);
  const [certPem, keyPem, serverCertPem, serverKeyPem, caPem] = await Promise.all([
    readIdentityValue(identity.cert, `${at}.cert`),
    readIdentityValue(identity.key, `${at}.key`),
    readIdentityValue(identity.server_cert, `${at}.server_cert`),
    readIdentityValue(identity.server_key, `${at}.server_key`),
    readIdentityValue(identity.ca, `${at}.ca`),
  ]);
  const cert = parseCert(certPem, `${at}.cert`);
  checkPair(cert, keyPem, `${at}.cert`, `${at}.key`);
  checkPair(parseCert(serverCertPem, `${at}.server_cert`), serverKeyPem, `${at}.server_cert`, `${at}.server_key`);
  parseCert(caPem, `${at}.ca`);
  const routerId = commonNameOf(cert);
  if (routerId === undefined) throw new IdentityError(`${at}.cert: the certificate has no common name (the router's id)`);
  return { routerId, certPem, keyPem, serverCertPem, serverKeyPem, caPem };
}

export function commonNameOf(cert: X509Certificate): string | undefined {
  for (const line of cert.subject.split('\n')) {
    if (line.startsWith('CN=')) return line.slice(3);
  }
  return undefined;
}

function parseCert(pem: string, key: string): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch {
    throw new IdentityError(`${key}: not a PEM certificate`);
  }
}

function checkPair(cert: X509Certificate, keyPem: string, certKey: string, keyKey: string): void {
  let key;
  try {
    key = createPrivateKey(keyPem);
  } catch {
    throw new IdentityError(`${keyKey}: not a PEM private key`);
  }
  if (!cert.checkPrivateKey(key)) throw new IdentityError(`${keyKey} does not match the certificate of ${certKey}`);
}
