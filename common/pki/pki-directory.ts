// An operator's PKI folder: the root and intermediate CAs, the CA bundle peers trust, the trust domain,
// and one folder per controller. Everything here is files; the certificates come from the issuer modules.
import { join } from 'node:path';
import { systemClock, type Clock } from '../time/clock.ts';
import { createIntermediateCa, createRootCa, type CertificateIssuer } from './certificate-authority.ts';
import { openIssuer, type IssuedCertificate } from './certificate-signer.ts';
import { createControllerCertificate } from './controller-certificate.ts';
import { requireId, requireTrustDomain } from './name-rules.ts';
import { ensurePrivateDirectory, readTextFile, writeFiles, type PkiFile } from './pki-files.ts';
import { PkiError } from './pki-error.ts';
import { trustDomainOf } from './spiffe-id.ts';
import { certificateToPem, parseCertificate, parseCertificates } from './x509-runtime.ts';

export const defaultTrustDomain = 'edgeward.local';

export interface PkiPaths {
  rootCert: string;
  rootKey: string;
  intermediateCert: string;
  intermediateKey: string;
  /** Intermediate then root: the `ca` that controllers and clients trust. */
  bundle: string;
  trustDomain: string;
}

export function pkiPaths(dir: string): PkiPaths {
  return {
    rootCert: join(dir, 'root', 'ca.cert.pem'),
    rootKey: join(dir, 'root', 'ca.key.pem'),
    intermediateCert: join(dir, 'intermediate', 'ca.cert.pem'),
    intermediateKey: join(dir, 'intermediate', 'ca.key.pem'),
    bundle: join(dir, 'ca-bundle.pem'),
    trustDomain: join(dir, 'trust-domain'),
  };
}

export interface ControllerPaths {
  dir: string;
  cert: string;
  key: string;
  chain: string;
}

export function controllerPaths(dir: string, id: string): ControllerPaths {
  const controllerDir = join(dir, 'controllers', requireId(id, 'controller id'));
  return {
    dir: controllerDir,
    cert: join(controllerDir, 'cert.pem'),
    key: join(controllerDir, 'key.pem'),
    chain: join(controllerDir, 'chain.pem'),
  };
}

export interface InitPkiOptions {
  /** Default: the stored one, else "edgeward.local". Must match the stored one unless `force`. */
  trustDomain?: string;
  /** Replace every CA file with a new root and intermediate; certificates issued before stop verifying. */
  force?: boolean;
  clock?: Clock;
}

export interface Pki {
  trustDomain: string;
  root: CertificateIssuer;
  intermediate: CertificateIssuer;
  bundlePem: string;
  /** False when an existing PKI was loaded unchanged. */
  created: boolean;
}

export async function initPki(dir: string, options: InitPkiOptions = {}): Promise<Pki> {
  const requested = options.trustDomain === undefined ? undefined : requireTrustDomain(options.trustDomain);
  const clock = options.clock ?? systemClock;
  const paths = pkiPaths(dir);
  const caFiles = [paths.rootCert, paths.rootKey, paths.intermediateCert, paths.intermediateKey];
  const contents = await Promise.all(caFiles.map(readTextFile));
  const missing = caFiles.filter((_, index) => contents[index] === undefined);

  if (!options.force && missing.length === 0) return loadPki(dir, requested, clock);
  if (!options.force && missing.length < caFiles.length) {
    throw new PkiError(
      'INCOMPLETE_PKI',
      `the PKI in ${dir} is incomplete: missing ${missing.join(', ')}; restore them, or re-run with --force to replace every CA`,
    );
  }

  const trustDomain = requested ?? (await storedTrustDomain(paths, options.force)) ?? defaultTrustDomain;
  const label = (tier: string) => caName(trustDomain, tier);
  const root = await createRootCa({ commonName: label('root'), trustDomain, clock });
  const intermediate = await createIntermediateCa(root, { commonName: label('intermediate'), clock });
  const bundlePem = intermediate.certPem + root.certPem;
  await ensurePrivateDirectory(dir);
  await ensurePrivateDirectory(join(dir, 'root'));
  await ensurePrivateDirectory(join(dir, 'intermediate'));
  await writeFiles(
    [
      { path: paths.rootKey, contents: root.keyPem, secret: true },
      { path: paths.rootCert, contents: root.certPem, secret: false },
      { path: paths.intermediateKey, contents: intermediate.keyPem, secret: true },
      { path: paths.intermediateCert, contents: intermediate.certPem, secret: false },
      { path: paths.bundle, contents: bundlePem, secret: false },
      { path: paths.trustDomain, contents: `${trustDomain}\n`, secret: false },
    ],
    { force: options.force === true },
  );
  return { trustDomain, root, intermediate, bundlePem, created: true };
}

/** The intermediate CA, which signs every controller, router and identity certificate. */
export async function loadIssuer(dir: string): Promise<CertificateIssuer> {
  const paths = pkiPaths(dir);
  const [certPem, keyPem] = await Promise.all([readTextFile(paths.intermediateCert), readTextFile(paths.intermediateKey)]);
  if (certPem === undefined && keyPem === undefined) {
    throw new PkiError('NOT_INITIALIZED', `no PKI in ${dir}: run "pki init --dir ${dir}" first`);
  }
  if (certPem === undefined || keyPem === undefined) {
    throw new PkiError('INCOMPLETE_PKI', `the PKI in ${dir} is incomplete: missing ${certPem === undefined ? paths.intermediateCert : paths.intermediateKey}`);
  }
  return { certPem, keyPem };
}

/** The trust domain recorded at init; falls back to the one the intermediate certificate declares. */
export async function loadTrustDomain(dir: string): Promise<string> {
  const paths = pkiPaths(dir);
  const stored = await readTextFile(paths.trustDomain);
  if (stored !== undefined) return requireTrustDomain(stored.trim());
  const fromCertificate = trustDomainOf((await loadIssuer(dir)).certPem);
  if (fromCertificate === undefined) throw new PkiError('INCOMPLETE_PKI', `the PKI in ${dir} has no trust domain: missing ${paths.trustDomain}`);
  return fromCertificate;
}

export interface IssueControllerOptions {
  id: string;
  dnsNames: string[];
  ipAddresses: string[];
  validityDays?: number;
  /** Replace an existing certificate and key for this controller (rotation). */
  force?: boolean;
  clock?: Clock;
}

export interface StoredControllerCertificate extends IssuedCertificate {
  paths: ControllerPaths;
}

export async function issueControllerCertificate(dir: string, options: IssueControllerOptions): Promise<StoredControllerCertificate> {
  const paths = controllerPaths(dir, options.id);
  const issuer = await loadIssuer(dir);
  const trustDomain = await loadTrustDomain(dir);
  const issued = await createControllerCertificate(issuer, {
    id: options.id,
    trustDomain,
    dnsNames: options.dnsNames,
    ipAddresses: options.ipAddresses,
    ...(options.validityDays === undefined ? {} : { validityDays: options.validityDays }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  await ensurePrivateDirectory(join(dir, 'controllers'));
  await ensurePrivateDirectory(paths.dir);
  await writeFiles(
    [
      { path: paths.key, contents: issued.keyPem, secret: true },
      { path: paths.cert, contents: issued.certPem, secret: false },
      { path: paths.chain, contents: issued.chainPem, secret: false },
    ],
    { force: options.force === true },
  );
  return { ...issued, paths };
}

/** Loads an existing PKI, checking that its parts belong together before anyone issues from it. */
async function loadPki(dir: string, requested: string | undefined, clock: Clock): Promise<Pki> {
  const paths = pkiPaths(dir);
  const read = async (path: string) => (await readTextFile(path))!;
  const root: CertificateIssuer = { certPem: await read(paths.rootCert), keyPem: await read(paths.rootKey) };
  const intermediate: CertificateIssuer = { certPem: await read(paths.intermediateCert), keyPem: await read(paths.intermediateKey) };
  const openedRoot = await openIssuer(root, clock.now()).catch(inFile(paths.rootCert));
  const openedIntermediate = await openIssuer(intermediate, clock.now()).catch(inFile(paths.intermediateCert));
  const signedByRoot = await openedIntermediate.certificate.verify({ publicKey: openedRoot.certificate.publicKey, signatureOnly: true });
  if (!signedByRoot) {
    throw new PkiError('INVALID_ISSUER', `${paths.intermediateCert} was not signed by ${paths.rootCert}; re-run with --force to replace every CA`);
  }

  const stored = await storedTrustDomain(paths, false);
  const declared = trustDomainOf(root.certPem);
  const trustDomain = stored ?? declared ?? requested ?? defaultTrustDomain;
  for (const [source, value] of [['--trust-domain', requested], [paths.trustDomain, stored], [paths.rootCert, declared]] as const) {
    if (value !== undefined && value !== trustDomain) {
      throw new PkiError(
        'TRUST_DOMAIN_MISMATCH',
        `the PKI in ${dir} is for trust domain "${trustDomain}" but ${source} says "${value}"; re-run with --force to replace every CA`,
      );
    }
  }

  const bundlePem = intermediate.certPem + root.certPem;
  const existingBundle = await readTextFile(paths.bundle);
  if (existingBundle !== undefined && !holdsCertificates(existingBundle, [intermediate.certPem, root.certPem])) {
    throw new PkiError('INCOMPLETE_PKI', `${paths.bundle} does not hold the current intermediate and root certificates; delete it to have it rewritten`);
  }
  // Derived files are restored when missing, never rewritten.
  const restore: PkiFile[] = [];
  if (existingBundle === undefined) restore.push({ path: paths.bundle, contents: bundlePem, secret: false });
  if (stored === undefined) restore.push({ path: paths.trustDomain, contents: `${trustDomain}\n`, secret: false });
  await writeFiles(restore, { force: false });
  return { trustDomain, root, intermediate, bundlePem: existingBundle ?? bundlePem, created: false };
}

async function storedTrustDomain(paths: PkiPaths, ignoreInvalid: boolean | undefined): Promise<string | undefined> {
  const text = await readTextFile(paths.trustDomain);
  if (text === undefined) return undefined;
  try {
    return requireTrustDomain(text.trim());
  } catch (error) {
    if (ignoreInvalid) return undefined;
    throw new PkiError('INCOMPLETE_PKI', `${paths.trustDomain} holds an invalid trust domain`, { cause: error });
  }
}

function holdsCertificates(bundlePem: string, certPems: string[]): boolean {
  let held: string[];
  try {
    held = parseCertificates(bundlePem, 'CA bundle').map(certificateToPem);
  } catch {
    return false;
  }
  return certPems.every((pem) => held.includes(certificateToPem(parseCertificate(pem))));
}

function inFile(path: string): (error: unknown) => never {
  return (error) => {
    if (error instanceof PkiError) throw new PkiError(error.code, `${path}: ${error.message}`, { cause: error });
    throw error;
  };
}

/** "<trustDomain> root CA" when it fits the 64-character CN limit; distinct names help tell PKIs apart. */
function caName(trustDomain: string, tier: string): string {
  const name = `${trustDomain} ${tier} CA`;
  return name.length <= 64 ? name : `edgeward ${tier} CA`;
}
