// `edgeward pki`: the operator's commands for the PKI folder. Returns an exit code and never throws:
// 0 done, 1 the operation failed (files, CA state), 2 the command line is wrong.
import { describeCertificates, type CertificateDetails } from './certificate-details.ts';
import { createClientCertificate } from './client-certificate.ts';
import { requireCommonName, requireDnsName, requireId, requireIpAddress, requireTrustDomain } from './name-rules.ts';
import { initPki, issueControllerCertificate, loadIssuer, pkiPaths } from './pki-directory.ts';
import { PkiError } from './pki-error.ts';
import { readTextFile, writeFiles } from './pki-files.ts';

export interface CommandIo {
  /** Receives whole lines, each ending in "\n". */
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

interface FlagSpec {
  value: boolean;
  repeatable?: boolean;
}

interface CommandSpec {
  synopsis: string;
  summary: string;
  flags: Record<string, FlagSpec>;
  positionals: string[];
  run: (parsed: ParsedArgs, io: CommandIo) => Promise<void>;
}

interface ParsedArgs {
  values: Map<string, string[]>;
  positionals: string[];
}

class UsageError extends Error {}

const commands: Record<string, CommandSpec> = {
  init: {
    synopsis: 'init --dir <dir> [--trust-domain <td>] [--force]',
    summary: 'create the root CA, intermediate CA and ca-bundle.pem (an existing PKI is loaded, not replaced)',
    flags: { dir: { value: true }, 'trust-domain': { value: true }, force: { value: false } },
    positionals: [],
    run: runInit,
  },
  controller: {
    synopsis: 'controller --dir <dir> --id <id> [--dns <name>]... [--ip <addr>]... [--force]',
    summary: 'issue a TLS server+client certificate into <dir>/controllers/<id>/ (defaults: --dns localhost --ip 127.0.0.1)',
    flags: {
      dir: { value: true },
      id: { value: true },
      dns: { value: true, repeatable: true },
      ip: { value: true, repeatable: true },
      force: { value: false },
    },
    positionals: [],
    run: runController,
  },
  client: {
    synopsis: 'client --dir <dir> --name <cn> --out <prefix> [--force]',
    summary: 'issue a TLS client certificate as <prefix>.cert.pem and <prefix>.key.pem',
    flags: { dir: { value: true }, name: { value: true }, out: { value: true }, force: { value: false } },
    positionals: [],
    run: runClient,
  },
  show: {
    synopsis: 'show <cert.pem>',
    summary: 'print subject, issuer, serial, validity, SANs, SPIFFE id and fingerprint of each certificate in the file',
    flags: {},
    positionals: ['cert.pem'],
    run: runShow,
  },
};

const helpFlags = new Set(['--help', '-h']);

/** `args` are the words after `edgeward pki` (a leading "pki" is accepted too). */
export async function runPkiCommand(args: string[], io: CommandIo): Promise<number> {
  const words = args[0] === 'pki' ? args.slice(1) : args;
  const [name, ...rest] = words;
  if (name === undefined) return usageFailure(io, 'missing command', usage());
  if (name === 'help' || helpFlags.has(name)) {
    io.stdout(usage());
    return 0;
  }
  const command = commands[name];
  if (!command) return usageFailure(io, `unknown command "${name}"`, usage());
  if (rest.some((word) => helpFlags.has(word))) {
    io.stdout(commandUsage(command));
    return 0;
  }
  try {
    await command.run(parseArgs(command, rest), io);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) return usageFailure(io, error.message, commandUsage(command));
    if (error instanceof PkiError && error.code === 'INVALID_ARGUMENT') return usageFailure(io, error.message, commandUsage(command));
    if (error instanceof PkiError) {
      io.stderr(`error: ${error.message}\n`);
      return 1;
    }
    io.stderr(`error: unexpected failure: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

function usageFailure(io: CommandIo, message: string, help: string): number {
  io.stderr(`error: ${message}\n\n${help}`);
  return 2;
}

function usage(): string {
  const lines = Object.entries(commands).map(([, command]) => `  edgeward pki ${command.synopsis}\n      ${command.summary}\n`);
  return `usage:\n${lines.join('')}  edgeward pki --help\n`;
}

function commandUsage(command: CommandSpec): string {
  return `usage: edgeward pki ${command.synopsis}\n  ${command.summary}\n`;
}

function parseArgs(command: CommandSpec, words: string[]): ParsedArgs {
  const values = new Map<string, string[]>();
  const positionals: string[] = [];
  for (let index = 0; index < words.length; index++) {
    const word = words[index]!;
    if (!word.startsWith('-') || word === '-') {
      positionals.push(word);
      continue;
    }
    const [flag, inline] = splitFlag(word);
    const spec = word.startsWith('--') ? command.flags[flag] : undefined;
    if (!spec) throw new UsageError(`unknown flag "${word.split('=')[0]}"`);
    let value = 'true';
    if (spec.value) {
      const next = inline ?? words[index + 1];
      if (inline === undefined) index++;
      if (next === undefined || next === '' || (inline === undefined && next.startsWith('--'))) {
        throw new UsageError(`flag "--${flag}" needs a value`);
      }
      value = next;
    } else if (inline !== undefined) {
      throw new UsageError(`flag "--${flag}" takes no value`);
    }
    const seen = values.get(flag) ?? [];
    if (seen.length > 0 && !spec.repeatable) throw new UsageError(`flag "--${flag}" given more than once`);
    values.set(flag, [...seen, value]);
  }
  if (positionals.length > command.positionals.length) throw new UsageError(`unexpected argument "${positionals[command.positionals.length]}"`);
  if (positionals.length < command.positionals.length) throw new UsageError(`missing argument <${command.positionals[positionals.length]}>`);
  return { values, positionals };
}

function splitFlag(word: string): [string, string | undefined] {
  const body = word.slice(2);
  const equals = body.indexOf('=');
  return equals === -1 ? [body, undefined] : [body.slice(0, equals), body.slice(equals + 1)];
}

function required(parsed: ParsedArgs, flag: string): string {
  const value = parsed.values.get(flag)?.[0];
  if (value === undefined) throw new UsageError(`missing required flag "--${flag}"`);
  return value;
}

function optional(parsed: ParsedArgs, flag: string): string | undefined {
  return parsed.values.get(flag)?.[0];
}

async function runInit(parsed: ParsedArgs, io: CommandIo): Promise<void> {
  const dir = required(parsed, 'dir');
  const trustDomain = optional(parsed, 'trust-domain');
  if (trustDomain !== undefined) requireTrustDomain(trustDomain);
  const pki = await initPki(dir, { ...(trustDomain === undefined ? {} : { trustDomain }), force: parsed.values.has('force') });
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
  const dnsNames = (parsed.values.get('dns') ?? ['localhost']).map(requireDnsName);
  const ipAddresses = (parsed.values.get('ip') ?? ['127.0.0.1']).map(requireIpAddress);
  const issued = await issueControllerCertificate(dir, { id, dnsNames, ipAddresses, force: parsed.values.has('force') });
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
    { force: parsed.values.has('force') },
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
