// Makes keys, CSRs and certificates with the openssl CLI in a folder the caller owns (under a fixture's root, so
// it is removed with it), the way an operator of a third-party CA or an enrolling client would. Every call is async
// and bounded in time.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runTool } from './run-tool.ts';

export interface CertFiles {
  readonly certFile: string;
  readonly keyFile: string;
  readonly certPem: string;
}

/** How long a certificate is valid: days from now, or a fixed window as YYYYMMDDHHMMSSZ (through `openssl ca`). */
export interface Validity {
  readonly days?: number;
  readonly startDate?: string;
  readonly endDate?: string;
}

export const caExtensions = ['basicConstraints=critical,CA:TRUE', 'keyUsage=critical,keyCertSign,cRLSign', 'subjectKeyIdentifier=hash', 'authorityKeyIdentifier=keyid'];
export const clientExtensions = [
  'basicConstraints=critical,CA:FALSE',
  'keyUsage=critical,digitalSignature',
  'extendedKeyUsage=clientAuth',
  'subjectKeyIdentifier=hash',
  'authorityKeyIdentifier=keyid',
];
/** For a self-signed client certificate: no authority key id, which would name itself. */
const selfSignedClientExtensions = ['basicConstraints=critical,CA:FALSE', 'keyUsage=critical,digitalSignature', 'extendedKeyUsage=clientAuth'];

export class OpensslWorkbench {
  private readonly reqConfig: string;
  private readonly caConfig: string;

  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
    // Minimal configs, so the system openssl.cnf cannot add extensions behind the test's back.
    this.reqConfig = this.write('req.cnf', '[req]\ndistinguished_name=dn\n[dn]\n');
    const database = join(dir, 'ca-db');
    mkdirSync(database, { recursive: true });
    writeFileSync(join(database, 'index.txt'), '');
    this.caConfig = this.write(
      'ca.cnf',
      [
        '[ca]', 'default_ca=test_ca',
        '[test_ca]', `database=${join(database, 'index.txt')}`, `new_certs_dir=${database}`,
        'rand_serial=yes', 'default_md=sha256', 'policy=any', 'unique_subject=no',
        '[any]', 'commonName=supplied',
      ].join('\n') + '\n',
    );
  }

  openssl(args: readonly string[]): Promise<string> {
    return runTool('openssl', args).then((output) => output.stdout);
  }

  /** Writes a file in the workbench and returns its path. */
  write(name: string, content: string | Buffer): string {
    const file = join(this.dir, name);
    writeFileSync(file, content);
    return file;
  }

  /** A self-signed root CA whose subject CN is `commonName`. */
  async rootCa(name: string, commonName = name, days = 30): Promise<CertFiles> {
    return this.selfSigned(name, commonName, caExtensions, days);
  }

  /** A self-signed end-entity certificate allowed for TLS client authentication. */
  async selfSignedClient(name: string, commonName = name): Promise<CertFiles> {
    return this.selfSigned(name, commonName, selfSignedClientExtensions, 30);
  }

  /** A new EC P-256 key and a PKCS#10 request for it. */
  async keyAndCsr(name: string, commonName = name): Promise<{ keyFile: string; csrFile: string; csrPem: string }> {
    const keyFile = join(this.dir, `${name}.key`);
    const csrFile = join(this.dir, `${name}.csr`);
    await this.openssl(['req', '-config', this.reqConfig, '-new', ...newKey(keyFile), '-subj', `/CN=${commonName}`, '-out', csrFile]);
    return { keyFile, csrFile, csrPem: readFileSync(csrFile, 'utf8') };
  }

  /** A certificate for a new key, signed by `issuer`, with the given extensions (client or CA) and validity. */
  async issue(name: string, issuer: CertFiles, options: { commonName?: string; extensions?: readonly string[]; validity?: Validity } = {}): Promise<CertFiles> {
    const { keyFile, csrFile } = await this.keyAndCsr(name, options.commonName ?? name);
    const certFile = join(this.dir, `${name}.pem`);
    const extFile = this.write(`${name}.ext`, `${(options.extensions ?? clientExtensions).join('\n')}\n`);
    const validity = options.validity ?? {};
    if (validity.startDate || validity.endDate) {
      // openssl 3.0's x509 cannot set notBefore, and a certificate already expired needs one in the past.
      const window = ['-startdate', validity.startDate ?? '20200101000000Z', '-enddate', validity.endDate ?? '20991231235959Z'];
      await this.openssl(['ca', '-batch', '-config', this.caConfig, '-cert', issuer.certFile, '-keyfile', issuer.keyFile, '-in', csrFile, ...window, '-extfile', extFile, '-notext', '-out', certFile]);
    } else {
      await this.openssl(['x509', '-req', '-in', csrFile, '-CA', issuer.certFile, '-CAkey', issuer.keyFile, '-CAcreateserial', '-days', String(validity.days ?? 30), '-extfile', extFile, '-out', certFile]);
    }
    return { certFile, keyFile, certPem: readFileSync(certFile, 'utf8') };
  }

  /** SHA-1 fingerprint as OpenZiti stores it: lowercase hex, no colons. */
  async fingerprint(certFile: string): Promise<string> {
    const printed = await this.openssl(['x509', '-in', certFile, '-noout', '-fingerprint', '-sha1']);
    const match = /Fingerprint=([0-9A-F:]+)/i.exec(printed);
    if (!match) throw new Error(`no fingerprint in: ${printed}`);
    return match[1]!.replaceAll(':', '').toLowerCase();
  }

  /** The subject's CN as openssl reads it. */
  async commonName(certFile: string): Promise<string> {
    const printed = await this.openssl(['x509', '-in', certFile, '-noout', '-subject', '-nameopt', 'RFC2253']);
    const match = /CN=([^,\n]+)/.exec(printed);
    if (!match) throw new Error(`no CN in: ${printed}`);
    return match[1]!.trim();
  }

  private async selfSigned(name: string, commonName: string, extensions: readonly string[], days: number): Promise<CertFiles> {
    const certFile = join(this.dir, `${name}.pem`);
    const keyFile = join(this.dir, `${name}.key`);
    const addExt = extensions.flatMap((line) => ['-addext', line]);
    await this.openssl(['req', '-config', this.reqConfig, '-x509', ...newKey(keyFile), '-subj', `/CN=${commonName}`, '-days', String(days), ...addExt, '-out', certFile]);
    return { certFile, keyFile, certPem: readFileSync(certFile, 'utf8') };
  }
}

function newKey(keyFile: string): string[] {
  return ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyFile];
}

/** Every PEM CERTIFICATE block of a text, normalised (for comparing bundles). */
export function pemCertificates(text: string): string[] {
  return [...text.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g)].map((match) => match[0].replace(/\r/g, ''));
}
