// Test support: makes certificates with the openssl CLI in a temporary directory, the way an operator of a
// third-party CA would, so the verifier is checked against certificates it did not produce itself.
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { opensslOk } from '../../../common/pki/openssl-cli.ts';
import { certificateDers } from './pem-blocks.ts';

export interface TestCertificate {
  readonly name: string;
  readonly certPem: string;
  readonly der: Buffer;
  readonly certFile: string;
  readonly keyFile: string;
}

/** Lines for an openssl extensions file. */
export const CA_EXTENSIONS = [
  'basicConstraints=critical,CA:TRUE',
  'keyUsage=critical,keyCertSign,cRLSign',
  'subjectKeyIdentifier=hash',
  'authorityKeyIdentifier=keyid',
];
export const CLIENT_EXTENSIONS = [
  'basicConstraints=critical,CA:FALSE',
  'keyUsage=critical,digitalSignature',
  'extendedKeyUsage=clientAuth',
  'subjectKeyIdentifier=hash',
  'authorityKeyIdentifier=keyid',
];
export const SERVER_EXTENSIONS = [
  'basicConstraints=critical,CA:FALSE',
  'keyUsage=critical,digitalSignature',
  'extendedKeyUsage=serverAuth',
  'subjectAltName=IP:127.0.0.1',
  'subjectKeyIdentifier=hash',
  'authorityKeyIdentifier=keyid',
];

export interface Lifetime {
  /** Days from now (openssl x509 -days). */
  readonly days?: number;
  /** Fixed window as YYYYMMDDHHMMSSZ; issued through `openssl ca`, since openssl 3.0's x509 has no -not_before. */
  readonly startDate?: string;
  readonly endDate?: string;
}

export class OpensslTestPki {
  readonly dir = mkdtempSync(join(tmpdir(), 'edgeward-cert-auth-'));
  private readonly reqConfig = join(this.dir, 'req.cnf');

  constructor() {
    // A minimal config, so the system openssl.cnf cannot add extensions behind the test's back.
    writeFileSync(this.reqConfig, '[req]\ndistinguished_name=dn\n[dn]\n');
  }

  /** A self-signed certificate (a root CA with CA_EXTENSIONS, or a lone client certificate). */
  selfSigned(name: string, extensions: readonly string[] = CA_EXTENSIONS, days = 30): TestCertificate {
    const { certFile, keyFile } = this.files(name);
    const addExt = extensions.flatMap((line) => ['-addext', line]);
    opensslOk(['req', '-config', this.reqConfig, '-x509', ...newKeyArgs(keyFile), '-subj', `/CN=${name}`, '-days', String(days), ...addExt, '-out', certFile]);
    return this.load(name);
  }

  /**
   * `count` self-signed CA certificates with one key and one name, differing only in serial: each can vouch for
   * every other, which is the worst case for a path search.
   */
  selfSignedTwins(name: string, count: number, extensions: readonly string[]): TestCertificate[] {
    const keyFile = join(this.dir, `${name}.key`);
    opensslOk(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-out', keyFile]);
    const addExt = extensions.flatMap((line) => ['-addext', line]);
    return Array.from({ length: count }, (_, index) => {
      const certFile = join(this.dir, `${name}-${index}.pem`);
      opensslOk(['req', '-config', this.reqConfig, '-x509', '-key', keyFile, '-subj', `/CN=${name}`, '-set_serial', String(index + 1), '-days', '30', ...addExt, '-out', certFile]);
      const certPem = readFileSync(certFile, 'utf8');
      return { name, certPem, der: certificateDers(certPem)[0]!, certFile, keyFile };
    });
  }

  /** A certificate for a new key, signed by `issuer`. */
  issue(name: string, issuer: TestCertificate, extensions: readonly string[], lifetime: Lifetime = {}): TestCertificate {
    const { certFile, keyFile } = this.files(name);
    const csrFile = join(this.dir, `${name}.csr`);
    const extFile = join(this.dir, `${name}.ext`);
    writeFileSync(extFile, `${extensions.join('\n')}\n`);
    opensslOk(['req', '-config', this.reqConfig, '-new', ...newKeyArgs(keyFile), '-subj', `/CN=${name}`, '-out', csrFile]);
    if (lifetime.startDate || lifetime.endDate) {
      const window = ['-startdate', lifetime.startDate ?? '20200101000000Z', '-enddate', lifetime.endDate ?? '20991231235959Z'];
      opensslOk(['ca', '-batch', '-config', this.caConfig(), '-cert', issuer.certFile, '-keyfile', issuer.keyFile, '-in', csrFile, ...window, '-extfile', extFile, '-notext', '-out', certFile]);
    } else {
      opensslOk(['x509', '-req', '-in', csrFile, '-CA', issuer.certFile, '-CAkey', issuer.keyFile, '-days', String(lifetime.days ?? 30), '-extfile', extFile, '-out', certFile]);
    }
    return this.load(name);
  }

  /** openssl's own SHA-1 fingerprint, as `AA:BB:...`. */
  opensslFingerprint(certificate: TestCertificate): string {
    return opensslOk(['x509', '-in', certificate.certFile, '-noout', '-fingerprint', '-sha1']).trim();
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }

  private files(name: string): { certFile: string; keyFile: string } {
    return { certFile: join(this.dir, `${name}.pem`), keyFile: join(this.dir, `${name}.key`) };
  }

  private load(name: string): TestCertificate {
    const { certFile, keyFile } = this.files(name);
    const certPem = readFileSync(certFile, 'utf8');
    return { name, certPem, der: certificateDers(certPem)[0]!, certFile, keyFile };
  }

  private caConfig(): string {
    const database = join(this.dir, 'ca-db');
    const config = join(this.dir, 'ca.cnf');
    mkdirSync(database, { recursive: true });
    writeFileSync(join(database, 'index.txt'), '', { flag: 'a' });
    writeFileSync(
      config,
      [
        '[ca]', 'default_ca=test_ca',
        '[test_ca]', `database=${join(database, 'index.txt')}`, `new_certs_dir=${database}`,
        'rand_serial=yes', 'default_md=sha256', 'policy=any', 'unique_subject=no',
        '[any]', 'commonName=supplied',
      ].join('\n'),
    );
    return config;
  }
}

function newKeyArgs(keyFile: string): string[] {
  return ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyFile];
}
