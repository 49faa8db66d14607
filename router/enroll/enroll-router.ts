// `router enroll <router.yml> --jwt <file>`: turns an edge router's one-time enrollment JWT into the router's
// identity files.
//
// 1. The JWT's claims are judged first (em "erott", not expired) and the config must have `edge.csr`.
// 2. Trust: the controller's CA bundle is fetched from `<iss>/.well-known/est/cacerts` (base64 PKCS#7) without
//    verifying the server; then the controller's TLS certificate is read over a connection verified against that
//    bundle; it must be a controller's (run/controller-identity.ts: the controller SPIFFE id of a trust domain the
//    bundle declares, or one of ctrl.controllerFingerprints), not another router's from the same CA; and the JWT's
//    signature must verify with that certificate's public key. Only then is the bundle used.
// 3. `identity.key` is generated when missing (ECDSA P-256, PKCS#8 PEM, mode 0600); two CSRs (client and server
//    certificate) with the edge.csr subject and SANs are POSTed as `{serverCertCsr, certCsr}` to
//    `<iss>/edge/client/v1/enroll/erott?token=<jti>`; the answer `{data: {cert, serverCert, ca}}` is written to
//    `identity.cert`, `identity.server_cert` and `identity.ca`, and `ctrlAddresses` to the endpoints file.

import type { X509Certificate } from 'node:crypto';
import { access, chmod, mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { jwtVerify } from 'jose';
import { generateKeyPair, privateKeyToPem } from '../../common/pki/key-pair.ts';
import { x509 } from '../../common/pki/x509-runtime.ts';
import type { Logger } from '../../common/log/logger.ts';
import type { Clock } from '../../common/time/clock.ts';
import { identitySourceKind } from '../config/identity-source.ts';
import type { RouterConfig } from '../config/router-config.ts';
import { controllerTrustOf, verifyControllerCertificate } from '../run/controller-identity.ts';
import { contentFromAddresses } from '../run/endpoints-file-format.ts';
import { writeEndpointsFile } from '../run/endpoints-file.ts';
import { readIdentityValue } from '../run/identity-material.ts';
import { createCertificateRequest } from './certificate-requests.ts';
import { httpsCall, verifiedServerCertificate } from './enrollment-http.ts';
import { readEnrollmentClaims } from './enrollment-token.ts';

export class EnrollmentError extends Error {}

export interface EnrollmentResult {
  readonly routerId: string;
  /** Every file written, in order. */
  readonly written: readonly string[];
  readonly endpoints: readonly string[];
  readonly notes: readonly string[];
}

export async function enrollRouter(config: RouterConfig, configFile: string, jwt: string, deps: { clock: Clock; logger: Logger }): Promise<EnrollmentResult> {
  const csr = config.edge?.csr;
  if (!csr) throw new EnrollmentError(`${configFile} has no edge.csr section: the router cannot enroll without it (add edge.csr with the subject fields and sans for its certificates)`);
  const claimed = readEnrollmentClaims(jwt, deps.clock.now());
  if (!claimed.ok) throw new EnrollmentError(claimed.message);
  const claims = claimed.claims;
  const identity = config.identity;
  if (identity.ca === undefined) throw new EnrollmentError('identity.ca is not set: enrollment has nowhere to write the CA bundle');
  for (const [key, value] of [['identity.cert', identity.cert], ['identity.server_cert', identity.server_cert], ['identity.ca', identity.ca]] as const) {
    if (identitySourceKind(value) !== 'file') throw new EnrollmentError(`${key} must be a file path for enrollment to write it (it is ${value.slice(0, 7)}...)`);
  }
  const notes: string[] = [];

  // Trust, step 1: the bundle, from a server not yet verified.
  const bundlePem = await fetchCaBundle(claims.issuer);
  // Trust, step 2: the controller's certificate must chain to it, and must have signed the JWT.
  let controllerCert: X509Certificate;
  try {
    controllerCert = await verifiedServerCertificate(claims.issuer, bundlePem);
  } catch (error) {
    throw new EnrollmentError(`the controller at ${claims.issuer} presents a certificate that does not chain to its own CA bundle: ${(error as Error).message}`);
  }
  const verdict = verifyControllerCertificate(controllerCert, controllerTrustOf(bundlePem, config.ctrl.controllerFingerprints));
  if (!verdict.ok) throw new EnrollmentError(`the server at ${claims.issuer} is not a controller: ${verdict.reason}: refusing to enroll with it`);
  try {
    await jwtVerify(jwt.trim(), controllerCert.publicKey, { subject: claims.routerId, currentDate: new Date(deps.clock.now()) });
  } catch (error) {
    throw new EnrollmentError(`the enrollment token was not signed by the controller at ${claims.issuer} (${(error as Error).message}): refusing to trust it`);
  }
  deps.logger.info('enrollment token verified against the controller certificate', { issuer: claims.issuer, routerId: claims.routerId, controller: controllerCert.subject.replace(/\n/g, ', ') });

  const written: string[] = [];
  const keyPem = await keyFor(identity.key, 'identity.key', written);
  const serverKeyPem = identity.server_key === identity.key ? keyPem : await keyFor(identity.server_key, 'identity.server_key', written);
  const [certCsr, serverCertCsr] = await Promise.all([createCertificateRequest(keyPem, claims.routerId, csr), createCertificateRequest(serverKeyPem, claims.routerId, csr)]);

  const url = `${claims.issuer}/edge/client/v1/enroll/erott?token=${encodeURIComponent(claims.token)}`;
  let response;
  try {
    response = await httpsCall({ url, method: 'POST', json: { serverCertCsr, certCsr }, caPem: bundlePem });
  } catch (error) {
    throw new EnrollmentError(`cannot reach ${claims.issuer} to enroll: ${(error as Error).message}`);
  }
  const answer = parseJson(response.body);
  if (response.status < 200 || response.status > 299) {
    const apiError = (answer as { error?: { code?: string; message?: string; cause?: { reason?: string } } } | undefined)?.error;
    const reason = apiError ? `${apiError.code ?? 'error'}: ${apiError.message ?? ''}${apiError.cause?.reason ? ` (${apiError.cause.reason})` : ''}` : response.body.toString('utf8').slice(0, 300);
    throw new EnrollmentError(`the controller refused the enrollment (HTTP ${response.status}): ${reason}`);
  }
  const data = (answer as { data?: { cert?: unknown; serverCert?: unknown; ca?: unknown } } | undefined)?.data;
  if (!data || typeof data.cert !== 'string' || typeof data.serverCert !== 'string') throw new EnrollmentError('the controller answered the enrollment without data.cert and data.serverCert');
  const caPem = typeof data.ca === 'string' && data.ca.includes('BEGIN CERTIFICATE') ? data.ca : bundlePem;

  await writePublicFile(identity.cert, data.cert, written);
  if (identity.server_cert === identity.cert) {
    notes.push('identity.server_cert is not set (it defaults to identity.cert): the server certificate was not saved and listeners serve the client certificate; set identity.server_cert to keep it');
  } else await writePublicFile(identity.server_cert, data.serverCert, written);
  await writePublicFile(identity.ca, caPem, written);

  let endpoints: string[] = [];
  const content = contentFromAddresses(claims.ctrlAddresses);
  if (content.endpoints.length > 0) {
    endpoints = [...content.endpoints];
    if (await writeEndpointsFile(config.ctrl.endpointsFile, content)) written.push(config.ctrl.endpointsFile);
  } else {
    notes.push('the enrollment token names no control addresses (ctrlAddresses): the router will dial ctrl.endpoint(s) from its config');
  }
  deps.logger.info('router enrolled', { routerId: claims.routerId, written });
  return { routerId: claims.routerId, written, endpoints, notes };
}

async function fetchCaBundle(issuer: string): Promise<string> {
  let response;
  try {
    response = await httpsCall({ url: `${issuer}/.well-known/est/cacerts` });
  } catch (error) {
    throw new EnrollmentError(`cannot fetch the controller's CA bundle from ${issuer}/.well-known/est/cacerts: ${(error as Error).message}`);
  }
  if (response.status !== 200) throw new EnrollmentError(`the controller's CA bundle is not at ${issuer}/.well-known/est/cacerts (HTTP ${response.status})`);
  try {
    const certificates = new x509.X509Certificates(response.body.toString('ascii').replace(/\s+/g, ''));
    if (certificates.length === 0) throw new Error('no certificate in it');
    return certificates.map((certificate) => `${certificate.toString('pem').trim()}\n`).join('');
  } catch (error) {
    throw new EnrollmentError(`the controller's CA bundle is not base64 PKCS#7: ${(error as Error).message}`);
  }
}

/** The PEM key at `value`, generated (P-256, PKCS#8, mode 0600) when it is a file that does not exist. */
async function keyFor(value: string, key: string, written: string[]): Promise<string> {
  if (identitySourceKind(value) === 'file' && !(await exists(value))) {
    const pair = await generateKeyPair();
    const pem = await privateKeyToPem(pair.privateKey);
    await mkdir(dirname(value), { recursive: true });
    await writeFile(value, pem, { mode: 0o600, flag: 'wx' });
    await chmod(value, 0o600);
    written.push(value);
    return pem;
  }
  return readIdentityValue(value, key);
}

async function writePublicFile(path: string, contents: string, written: string[]): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.tmp-${process.pid}`;
  await writeFile(temporary, contents.endsWith('\n') ? contents : `${contents}\n`, { mode: 0o644 });
  await rename(temporary, path);
  written.push(path);
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}
