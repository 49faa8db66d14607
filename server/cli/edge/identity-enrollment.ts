// Enrolls an identity from its enrollment JWT, as `ziti edge enroll` does (edge-protocol-facts §6):
// 1. the JWT's claims are read (method, expiry) before anything else;
// 2. the controller's TLS certificate at `iss` is read without verification and the JWT's signature must verify with
//    its public key (and its `kid`, when set, must be that certificate's hex SHA-1, as OpenZiti sets it);
// 3. the CA bundle is fetched from `iss/.well-known/est/cacerts` over a connection held to that same certificate;
// 4. ott: a key is generated here (EC P-384, or RSA 4096 with --key-alg rsa) and never leaves; its CSR is posted to
//    `/edge/client/v1/enroll?method=ott&token=<jti>` over TLS verified against the bundle; updb: the password is
//    posted to `/edge/client/v1/enroll/updb?token=<jti>`.
// The caller writes the identity file (identity-file.ts).
import { createHash, createPrivateKey, webcrypto, type X509Certificate } from 'node:crypto';
import { jwtVerify } from 'jose';
import { decodeEstCaBundle } from '../../../common/pki/est-ca-bundle.ts';
import { x509 } from '../../../common/pki/x509-runtime.ts';
import { httpsExchange, unverifiedServerCertificate, type HttpsAnswer } from './enrollment-https.ts';
import { readIdentityEnrollmentClaims, type IdentityEnrollmentClaims } from './enrollment-token.ts';

export type EnrollmentKeyAlgorithm = 'ec' | 'rsa';

export interface IdentityEnrollmentRequest {
  readonly jwt: string;
  readonly keyAlgorithm: EnrollmentKeyAlgorithm;
  /** updb only. */
  readonly password?: string;
  readonly nowMs: number;
  readonly timeoutMs: number;
}

export interface EnrolledIdentity {
  readonly claims: IdentityEnrollmentClaims;
  readonly caPem: string;
  /** ott: the new key (PKCS#8 PEM) and the certificate chain the controller issued for it. */
  readonly keyPem?: string;
  readonly certPem?: string;
}

/** A failure the command prints as it is, with hints under it. */
export class IdentityEnrollmentError extends Error {
  constructor(
    message: string,
    readonly details: readonly string[] = [],
  ) {
    super(message);
  }
}

/** The claims, checked before any network use: expiry, method, and what the method needs. */
export function enrollmentClaims(request: Pick<IdentityEnrollmentRequest, 'jwt' | 'nowMs' | 'password'>): IdentityEnrollmentClaims {
  const read = readIdentityEnrollmentClaims(request.jwt, request.nowMs);
  if (!read.ok) throw new IdentityEnrollmentError(read.message);
  const { claims } = read;
  if (claims.method === 'ottca') {
    throw new IdentityEnrollmentError('the token is for ottca enrollment (a certificate from a third-party CA): edgeward issues no ottca enrollments and this command does not enroll them');
  }
  if (claims.method === 'updb' && request.password === undefined) {
    throw new IdentityEnrollmentError(`the token enrolls a password (updb)${claims.username ? ` for username ${claims.username}` : ''}: give the new password with --password or --password-file`);
  }
  return claims;
}

export async function enrollIdentity(request: IdentityEnrollmentRequest): Promise<EnrolledIdentity> {
  const claims = enrollmentClaims(request);
  const { issuer } = claims;

  let signer: X509Certificate;
  try {
    signer = await unverifiedServerCertificate(issuer, request.timeoutMs);
  } catch (error) {
    throw unreachable(issuer, error);
  }
  if (claims.keyId !== undefined && claims.keyId.toLowerCase() !== sha1Hex(signer.raw)) {
    throw new IdentityEnrollmentError(`the enrollment token's key id (kid ${claims.keyId}) is not the certificate the controller at ${issuer} presents: refusing to trust it`);
  }
  try {
    await jwtVerify(request.jwt.trim(), signer.publicKey, { subject: claims.identityId, currentDate: new Date(request.nowMs) });
  } catch (error) {
    throw new IdentityEnrollmentError(`the enrollment token's signature does not verify with the key of the certificate the controller at ${issuer} presents (${(error as Error).message}): refusing to trust it`, [
      'the token was made by another controller, or altered, or the address in it reaches another server',
    ]);
  }

  const caPem = await fetchCaBundle(issuer, signer, request.timeoutMs);
  if (claims.method === 'updb') {
    const answer = await post(`${issuer}/edge/client/v1/enroll/updb?token=${encodeURIComponent(claims.token)}`, caPem, request.timeoutMs, {
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ password: request.password }),
    });
    refused(answer);
    return { claims, caPem };
  }

  const key = await newKey(request.keyAlgorithm);
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: [{ CN: [claims.identityId] }], keys: key.pair, signingAlgorithm: key.signing });
  const answer = await post(`${issuer}/edge/client/v1/enroll?method=ott&token=${encodeURIComponent(claims.token)}`, caPem, request.timeoutMs, {
    headers: { 'content-type': 'application/x-pem-file', accept: 'application/json' },
    body: csr.toString('pem'),
  });
  refused(answer);
  const certPem = issuedChain(answer);
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key.pair.privateKey));
  const keyPem = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }).export({ type: 'pkcs8', format: 'pem' }).toString();
  const issuedKey = new x509.X509Certificate(x509.PemConverter.decodeFirst(certPem)).publicKey.rawData;
  if (!Buffer.from(issuedKey).equals(Buffer.from(await webcrypto.subtle.exportKey('spki', key.pair.publicKey)))) {
    throw new IdentityEnrollmentError('the controller answered with a certificate for another key than the one enrolled');
  }
  return { claims, caPem, keyPem, certPem };
}

async function newKey(algorithm: EnrollmentKeyAlgorithm): Promise<{ pair: CryptoKeyPair; signing: EcdsaParams | Algorithm }> {
  if (algorithm === 'rsa') {
    const params: RsaHashedKeyGenParams = { name: 'RSASSA-PKCS1-v1_5', modulusLength: 4096, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' };
    return { pair: (await webcrypto.subtle.generateKey(params, true, ['sign', 'verify'])) as CryptoKeyPair, signing: params };
  }
  const pair = (await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-384' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  return { pair, signing: { name: 'ECDSA', hash: 'SHA-384' } };
}

async function fetchCaBundle(issuer: string, signer: X509Certificate, timeoutMs: number): Promise<string> {
  const url = `${issuer}/.well-known/est/cacerts`;
  let answer: HttpsAnswer;
  try {
    answer = await httpsExchange({ url, method: 'GET', headers: { accept: 'application/pkcs7-mime' }, trust: { pinned: signer }, timeoutMs });
  } catch (error) {
    throw unreachable(issuer, error);
  }
  if (answer.status !== 200) throw new IdentityEnrollmentError(`the controller's CA bundle is not at ${url} (HTTP ${answer.status})`);
  try {
    return decodeEstCaBundle(answer.text);
  } catch (error) {
    throw new IdentityEnrollmentError(`the controller's CA bundle at ${url} is unreadable: ${(error as Error).message}`);
  }
}

async function post(url: string, caPem: string, timeoutMs: number, content: { headers: Record<string, string>; body: string }): Promise<HttpsAnswer> {
  try {
    return await httpsExchange({ url, method: 'POST', ...content, trust: { caPem }, timeoutMs });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (/CERT|SELF_SIGNED|UNABLE_TO|HOSTNAME|ERR_TLS/.test(code)) {
      throw new IdentityEnrollmentError(`the controller at ${new URL(url).origin} is not trusted by its own CA bundle (${code}: ${(error as Error).message}): refusing to enroll`);
    }
    throw unreachable(new URL(url).origin, error);
  }
}

/** A non-2xx answer, as the controller's error envelope says it. */
function refused(answer: HttpsAnswer): void {
  if (answer.status >= 200 && answer.status < 300) return;
  const envelope = parseJson(answer.text) as { error?: { code?: string; message?: string; cause?: { reason?: string } } } | undefined;
  const error = envelope?.error;
  const reason = error ? `${error.code ?? 'error'}: ${error.message ?? ''}${error.cause?.reason ? ` (${error.cause.reason})` : ''}` : answer.text.slice(0, 300);
  const details = answer.status === 400 || answer.status === 401 || answer.status === 404 ? ['the token may have been used already, expired, or its enrollment deleted: ask an administrator for a new one'] : [];
  throw new IdentityEnrollmentError(`the controller refused the enrollment (HTTP ${answer.status}): ${reason}`, details);
}

/** The certificate chain in an enroll answer: `{"data":{"cert":...}}`, or the bare PEM older controllers send. */
function issuedChain(answer: HttpsAnswer): string {
  const envelope = parseJson(answer.text) as { data?: { cert?: unknown } } | undefined;
  const cert = typeof envelope?.data?.cert === 'string' ? envelope.data.cert : answer.text;
  if (!cert.includes('-----BEGIN CERTIFICATE-----')) throw new IdentityEnrollmentError('the controller answered the enrollment without a certificate');
  return cert.endsWith('\n') ? cert : `${cert}\n`;
}

function unreachable(origin: string, error: unknown): IdentityEnrollmentError {
  const code = (error as NodeJS.ErrnoException).code;
  return new IdentityEnrollmentError(`cannot reach the controller at ${origin}: ${code ? `${code} ` : ''}${(error as Error).message}`, ['check the address in the token (iss) is reachable from here']);
}

function sha1Hex(der: Buffer): string {
  return createHash('sha1').update(der).digest('hex');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
