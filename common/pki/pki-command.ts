// `edgeward pki`: the operator's commands for the PKI folder. Returns an exit code and never throws:
// 0 done, 1 the operation failed (files, CA state), 2 the command line is wrong.
import { describeCertificates, type CertificateDetails } from './certificate-details.ts';
import { createClientCertificate } from './client-certificate.ts';
import { requireCommonName, requireDnsName, requireId, requireIpAddress, requireTrustDomain } from './name-rules.ts';
import { initPki, issueControllerCertificate, loadIssuer, pkiPaths } from './pki-directory.ts';
import { PkiError } from './pki-error.ts';
import { readTextFile, writeFiles } from './pki-files.ts';
import { commandLineOf, parseCommand, reportOutcome, type CommandLine, type CommandNode, type FlagDef, type FlagValues, type LeafCommand } from '../cli/command-line.ts';

export interface CommandIo {
  /** Receives whole lines, each ending in "\n". */
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

interface CommandSpec {
  synopsis: string;
  summary: string;
  flags: FlagDef[];
  arguments: string[];
  example: string[];
  /** The values' rules (names, addresses), checked with the command line. */
  values?: (flags: FlagValues) => void;
  run: (parsed: ParsedArgs, io: CommandIo) => Promise<void>;
}

interface ParsedArgs {
  flags: FlagValues;
  positionals: readonly string[];
}

const commands: Record<string, CommandSpec> = {
  init: {
    synopsis: 'init --dir <dir> [--trust-domain <td>] [--force]',
    summary: 'create the root CA, intermediate CA and ca-bundle.pem (an existing PKI is loaded, not replaced)',
    flags: [{ name: 'dir', kind: 'string', required: true }, { name: 'trust-domain', kind: 'string' }, { name: 'force', kind: 'boolean' }],
    arguments: [],
    example: ['--dir', 'pki'],
    values: (flags) => {
      const trustDomain = flags.text('trust-domain');
      if (trustDomain !== undefined) requireTrustDomain(trustDomain);
    },
    run: runInit,
  },
  controller: {
    synopsis: 'controller --dir <dir> --id <id> [--dns <name>]... [--ip <addr>]... [--force]',
    summary: 'issue a TLS server+client certificate into <dir>/controllers/<id>/ (defaults: --dns localhost --ip 127.0.0.1)',
    flags: [
      { name: 'dir', kind: 'string', required: true },
      { name: 'id', kind: 'string', required: true },
      { name: 'dns', kind: 'list' },
      { name: 'ip', kind: 'list' },
      { name: 'force', kind: 'boolean' },
    ],
    arguments: [],
    example: ['--dir', 'pki', '--id', 'ctrl1', '--dns', 'localhost', '--ip', '127.0.0.1'],
    values: (flags) => {
      requireId(flags.text('id')!, 'controller id');
      flags.list('dns').forEach((name) => requireDnsName(name));
      flags.list('ip').forEach((address) => requireIpAddress(address));
    },
    run: runController,
  },
  client: {
    synopsis: 'client --dir <dir> --name <cn> --out <prefix> [--force]',
    summary: 'issue a TLS client certificate as <prefix>.cert.pem and <prefix>.key.pem',
    flags: [{ name: 'dir', kind: 'string', required: true }, { name: 'name', kind: 'string', required: true }, { name: 'out', kind: 'string', required: true }, { name: 'force', kind: 'boolean' }],
    arguments: [],
    example: ['--dir', 'pki', '--name', 'admin', '--out', 'admin'],
    values: (flags) => void requireCommonName(flags.text('name')!),
    run: runClient,
  },
  show: {
    synopsis: 'show <cert.pem>',
    summary: 'print subject, issuer, serial, validity, SANs, SPIFFE id and fingerprint of each certificate in the file',
    flags: [],
    arguments: ['cert.pem'],
    example: ['cert.pem'],
    run: runShow,
  },
};

function leafOf(command: CommandSpec): LeafCommand {
  return {
    usage: commandUsage(command),
    flags: command.flags,
    arguments: command.arguments,
    min: command.arguments.length,
    max: command.arguments.length,
    example: command.example,
    check: ({ flags }) => {
      try {
        command.values?.(flags);
        return undefined;
      } catch (error) {
        if (error instanceof PkiError && error.code === 'INVALID_ARGUMENT') return error.message;
        throw error;
      }
    },
  };
}

const tree: CommandNode = { usage: usage(), subcommands: Object.fromEntries(Object.entries(commands).map(([name, command]) => [name, leafOf(command)])) };

/** `./edgeward pki ...`: its subcommands, and the parse the command runs first. */
export const pkiCommandLine: CommandLine = commandLineOf('pki', tree);

/** `args` are the words after `edgeward pki` (a leading "pki" is accepted too). */
export async function runPkiCommand(args: string[], io: CommandIo): Promise<number> {
  const words = args[0] === 'pki' ? args.slice(1) : args;
  const outcome = parseCommand('pki', tree, words);
  if (outcome.kind !== 'run') return reportOutcome(outcome, io);
  const name = outcome.value.path[0]!;
  const command = commands[name]!;
  try {
    await command.run({ flags: outcome.value.flags, positionals: outcome.value.positional }, io);
    return 0;
  } catch (error) {
    if (error instanceof PkiError && error.code === 'INVALID_ARGUMENT') return reportOutcome({ kind: 'usage-error', command: `pki ${name}`, reason: error.message }, io);
    if (error instanceof PkiError) {
      io.stderr(`error: ${error.message}\n`);
      return 1;
    }
    io.stderr(`error: unexpected failure: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

function usage(): string {
  const lines = Object.entries(commands).map(([, command]) => `  edgeward pki ${command.synopsis}\n      ${command.summary}\n`);
  return `usage:\n${lines.join('')}  edgeward pki --help\n`;
}

function commandUsage(command: CommandSpec): string {
  return `usage: edgeward pki ${command.synopsis}\n  ${command.summary}\n`;
}

function required(parsed: ParsedArgs, flag: string): string {
  return parsed.flags.text(flag)!;
}

function optional(parsed: ParsedArgs, flag: string): string | undefined {
  return parsed.flags.text(flag);
}

async function runInit(parsed: ParsedArgs, io: CommandIo): Promise<void> {
  const dir = required(parsed, 'dir');
  const trustDomain = optional(parsed, 'trust-domain');
  if (trustDomain !== undefined) requireTrustDomain(trustDomain);
  const pki = await initPki(dir, { ...(trustDomain === undefined ? {} : { trustDomain }), force: parsed.flags.bool('force') === true });
  const paths = pkiPaths(dir);
  io.stdout(
    pki.created
      ? `created PKI for trust domain "${pki.trustDomain}" in ${dir}\n` +
          `  root CA:          ${paths.rootCert}\n` +
          `  intermediate CA:  ${paths.intermediateCert}\n` +
          `  CA bundle:        ${paths.bundle}\n`
      : `PKI for trust domain "${pki.trustDomain}" already exists in ${dir}; nothing changed\n` +
          `  CA bundle:        ${paths.bundle}\n`,
  );
}

async function runController(parsed: ParsedArgs, io: CommandIo): Promise<void> {
  const dir = required(parsed, 'dir');
  const id = requireId(required(parsed, 'id'), 'controller id');
  const dnsNames = (parsed.flags.has('dns') ? parsed.flags.list('dns') : ['localhost']).map(requireDnsName);
  const ipAddresses = (parsed.flags.has('ip') ? parsed.flags.list('ip') : ['127.0.0.1']).map(requireIpAddress);
  const issued = await issueControllerCertificate(dir, { id, dnsNames, ipAddresses, force: parsed.flags.bool('force') === true });
  const [details] = describeCertificates(issued.certPem);
  io.stdout(
    `issued controller certificate "${id}" (${details!.spiffeId})\n` +
      `  certificate:  ${issued.paths.cert}\n` +
      `  key:          ${issued.paths.key}\n` +
      `  chain:        ${issued.paths.chain}\n` +
      `  expires:      ${details!.notAfter.toISOString()}\n`,
  );
}

async function runClient(parsed: ParsedArgs, io: CommandIo): Promise<void> {
  const dir = required(parsed, 'dir');
  const commonName = requireCommonName(required(parsed, 'name'));
  const out = required(parsed, 'out');
  const issuer = await loadIssuer(dir);
  const issued = await createClientCertificate(issuer, { commonName });
  const certPath = `${out}.cert.pem`;
  const keyPath = `${out}.key.pem`;
  await writeFiles(
    [
      { path: keyPath, contents: issued.keyPem, secret: true },
      { path: certPath, contents: issued.certPem, secret: false },
    ],
    { force: parsed.flags.bool('force') === true },
  );
  const [details] = describeCertificates(issued.certPem);
  io.stdout(
    `issued client certificate "${commonName}"\n` +
      `  certificate:  ${certPath}\n` +
      `  key:          ${keyPath}\n` +
      `  expires:      ${details!.notAfter.toISOString()}\n`,
  );
}

async function runShow(parsed: ParsedArgs, io: CommandIo): Promise<void> {
  const path = parsed.positionals[0]!;
  const pem = await readTextFile(path);
  if (pem === undefined) throw new PkiError('IO', `cannot read ${path}: no such file or directory`);
  io.stdout(describeCertificates(pem, path).map(formatDetails).join('\n'));
}

function formatDetails(details: CertificateDetails): string {
  const rows: Array<[string, string]> = [
    ['subject', details.subject],
    ['issuer', details.issuer],
    ['serial', details.serialNumber],
    ['not before', details.notBefore.toISOString()],
    ['not after', details.notAfter.toISOString()],
    ['SANs', details.subjectAltNames.join(', ') || '(none)'],
    ['SPIFFE id', details.spiffeId ?? (details.trustDomain ? `(none; trust domain ${details.trustDomain})` : '(none)')],
    ['fingerprint', details.fingerprint],
    ['CA', details.isCa ? `yes${details.pathLength === undefined ? '' : ` (path length ${details.pathLength})`}` : 'no'],
  ];
  if (details.extendedKeyUsages.length > 0) rows.push(['usage', details.extendedKeyUsages.join(', ')]);
  return rows.map(([label, value]) => `${`${label}:`.padEnd(14)}${value}\n`).join('');
}
