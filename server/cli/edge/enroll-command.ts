// `edgeward edge enroll <jwt file> [--out id.json]`, as `ziti edge enroll`: turns an identity's enrollment JWT into
// OpenZiti's identity file, which OpenZiti's SDKs and tunnelers (and `edgeward tunnel run`) load. Needs no session.
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { EdgeUsageError, type FlagDef, type ParsedFlags } from './edge-args.ts';
import { EdgeFailure } from './edge-errors.ts';
import { identityFileText, IdentityFileExistsError, prepareIdentityFile } from './identity-file.ts';
import { enrollIdentity, enrollmentClaims, IdentityEnrollmentError, type EnrollmentKeyAlgorithm } from './identity-enrollment.ts';
import { readSecret } from './secret-input.ts';

export const enrollFlags: FlagDef[] = [
  { name: 'out', short: 'o', kind: 'string', value: '<file>', help: 'where to write the identity file (default: the JWT file name with .json)' },
  { name: 'key-alg', kind: 'string', value: 'ec|rsa', help: 'the key to generate: ec (ECDSA P-384, the default) or rsa (RSA 4096)' },
  { name: 'password', short: 'p', kind: 'string', value: '<password>', help: 'updb tokens: the new password (better: --password-file)' },
  { name: 'password-file', kind: 'string', value: '<file>', help: "updb tokens: read the new password from this file ('-': standard input)" },
  { name: 'force', kind: 'boolean', help: 'overwrite an existing identity file' },
  { name: 'help', short: 'h', kind: 'boolean', help: 'print this help' },
];

export function enrollUsage(flagText: string): string {
  return `Usage: edgeward edge enroll <jwt file> [--out <file>] [--key-alg ec|rsa] [--password-file <file>] [--force]

Enrolls an identity with its one-time enrollment JWT (edgeward edge create identity ... -o <file>, or the
enrollment's jwt in the Management API) and writes OpenZiti's identity file, mode 0600: ztAPI (the controller's
https://host:port), ztAPIs, and id.key, id.cert and id.ca inline as pem:. The JWT's signature is checked against
the key of the certificate the controller at its iss presents; the key is generated here and never leaves; the CA
bundle comes from the controller's /.well-known/est/cacerts. ott tokens get a certificate; updb tokens set a
password (--password-file) and the file holds only the CA bundle. Needs no session.

Flags:
${flagText}`;
}

export function enrollArgumentProblem(parsed: ParsedFlags): string | undefined {
  if (parsed.positional.length !== 1) return parsed.positional.length === 0 ? 'enroll takes the enrollment JWT file' : `enroll takes one JWT file, not: ${parsed.positional.join(' ')}`;
  const algorithm = parsed.text('key-alg');
  if (algorithm !== undefined && !['ec', 'rsa'].includes(algorithm.toLowerCase())) return `--key-alg is ec or rsa, not '${algorithm}'`;
  if (parsed.has('password') && parsed.has('password-file')) return 'give either -p/--password or --password-file, not both';
  return undefined;
}

/** The default output: `x.jwt` → `x.json` beside it. */
export function defaultIdentityFile(jwtFile: string): string {
  const name = basename(jwtFile).replace(/\.jwt$/i, '');
  return join(dirname(jwtFile), `${name}.json`);
}

export async function runEnroll(parsed: ParsedFlags, io: { stdout: (text: string) => void }): Promise<number> {
  const problem = enrollArgumentProblem(parsed);
  if (problem) throw new EdgeUsageError(problem);
  const jwtFile = parsed.positional[0]!;
  let jwt: string;
  try {
    jwt = readFileSync(jwtFile, 'utf8').trim();
  } catch (error) {
    throw new EdgeUsageError(`cannot read the JWT file ${jwtFile}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const out = parsed.text('out') ?? defaultIdentityFile(jwtFile);
  const nowMs = Date.now();
  try {
    // Claims and the output file first: neither costs the one-time token.
    // (A updb password is asked for next; readSecret says how to give it when there is no terminal.)
    const claims = enrollmentClaims({ jwt, nowMs, password: '' });
    const password = claims.method === 'updb' ? await readSecret({ value: parsed.text('password'), file: parsed.text('password-file'), prompt: 'New password: ', flag: '--password-file' }) : undefined;
    const pending = await prepareIdentityFile(out, parsed.bool('force') === true).catch((error: NodeJS.ErrnoException) => {
      if (error instanceof IdentityFileExistsError) throw new EdgeFailure(error.message);
      throw new EdgeFailure(`cannot write ${out}: ${error.code ?? error.message}`);
    });
    try {
      const keyAlgorithm = (parsed.text('key-alg')?.toLowerCase() ?? 'ec') as EnrollmentKeyAlgorithm;
      const enrolled = await enrollIdentity({ jwt, keyAlgorithm, nowMs, timeoutMs: 15_000, ...(password !== undefined ? { password } : {}) });
      const origin = enrolled.claims.issuer;
      await pending.commit(
        identityFileText({
          controllerOrigin: origin,
          controllerOrigins: [origin],
          caPem: enrolled.caPem,
          ...(enrolled.keyPem !== undefined ? { keyPem: enrolled.keyPem } : {}),
          ...(enrolled.certPem !== undefined ? { certPem: enrolled.certPem } : {}),
        }),
      );
      const how = enrolled.claims.method === 'updb' ? `password (updb)${enrolled.claims.username ? ` for username ${enrolled.claims.username}` : ''}` : `certificate (ott, ${keyAlgorithm === 'rsa' ? 'RSA 4096' : 'ECDSA P-384'} key)`;
      io.stdout(`enrolled identity ${enrolled.claims.identityId} with a ${how} at ${origin}\nidentity file written to ${out}\n`);
      return 0;
    } catch (error) {
      await pending.abandon();
      throw error;
    }
  } catch (error) {
    if (error instanceof IdentityEnrollmentError) throw new EdgeFailure(error.message, error.details);
    throw error;
  }
}
