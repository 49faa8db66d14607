// `./edgeward router validate|run|enroll ...`.
// - validate <router.yml> [--effective]: every error and warning at once, as
//   `<file>:<line>: <severity>: <key path>: <message> (rule: <rule>)` on stderr; with --effective, the whole
//   configuration with defaults filled in as YAML on stdout. Exit 1 on any error, 0 with only warnings, 2 on misuse.
// - run <router.yml>: refuses to start on any error (missing identity files included: enroll first), then runs the
//   router until SIGINT/SIGTERM, logging JSON lines on stderr (EDGEWARD_LOG_LEVEL: debug, info, warn, error).
// - enroll <router.yml> --jwt <jwt-file>: writes the identity files from an edge router's enrollment JWT.

import { readFile } from 'node:fs/promises';
import { formatProblems } from '../../common/config/format-problems.ts';
import { hasErrors } from '../../common/config/problem.ts';
import type { ConfigProblem } from '../../common/config/problem.ts';
import { createJsonLogger, type LogLevel } from '../../common/log/logger.ts';
import { systemClock } from '../../common/time/clock.ts';
import { currentVersion } from '../../server/web/version-info.ts';
import { checkRouterFiles, readRouterConfig } from '../config-file.ts';
import { renderEffectiveConfig } from '../config/effective-config.ts';
import { inFileOrder } from '../config/router-config.ts';
import { enrollRouter, EnrollmentError } from '../enroll/enroll-router.ts';
import { IdentityError } from '../run/identity-material.ts';
import { RouterStartError, startRouter } from '../run/router-process.ts';

export interface RouterCliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

type Env = Readonly<Record<string, string | undefined>>;

const usage = `Usage:
  ./edgeward router validate <router.yml> [--effective]
      print every error and warning with its line and key path (exit 1 on errors, 0 with only warnings);
      --effective also prints the whole configuration, defaults filled in, as YAML on stdout
  ./edgeward router run <router.yml>
      run the router until SIGINT/SIGTERM (JSON log lines on stderr; EDGEWARD_LOG_LEVEL=debug|info|warn|error)
  ./edgeward router enroll <router.yml> --jwt <jwt-file>
      enroll with an edge router's one-time JWT: generate the key if missing, write cert, server_cert, ca
      and the endpoints file
`;

export async function runRouterCommand(args: readonly string[], io: RouterCliIo, env: Env = process.env): Promise<number> {
  const [action, ...rest] = args;
  if (action === undefined || action === '--help' || action === 'help') {
    io.stdout(usage);
    return action === undefined ? 2 : 0;
  }
  const parsed = parseArgs(action, rest);
  if ('error' in parsed) {
    io.stderr(`error: ${parsed.error}\n\n${usage}`);
    return 2;
  }
  switch (action) {
    case 'validate':
      return validate(parsed.file, parsed.flags.has('--effective'), io, env);
    case 'run':
      return run(parsed.file, io, env);
    default:
      return enroll(parsed.file, parsed.jwt!, io, env);
  }
}

interface ParsedArgs {
  readonly file: string;
  readonly flags: ReadonlySet<string>;
  readonly jwt?: string;
}

const flagsOf: Record<string, readonly string[]> = { validate: ['--effective'], run: [], enroll: ['--jwt'] };

function parseArgs(action: string, rest: readonly string[]): ParsedArgs | { error: string } {
  const allowed = flagsOf[action];
  if (allowed === undefined) return { error: `unknown router command '${action}'` };
  const files: string[] = [];
  const flags = new Set<string>();
  let jwt: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (!arg.startsWith('--')) {
      files.push(arg);
      continue;
    }
    const [name, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    if (!allowed.includes(name)) return { error: `unknown flag ${arg}` };
    if (name === '--jwt') {
      jwt = inline ?? rest[++i];
      if (jwt === undefined || jwt === '') return { error: '--jwt needs the path of the enrollment JWT file' };
    }
    flags.add(name);
  }
  if (files.length !== 1) return { error: 'expected one config file' };
  if (action === 'enroll' && jwt === undefined) return { error: 'router enroll needs --jwt <jwt-file>' };
  return { file: files[0]!, flags, ...(jwt === undefined ? {} : { jwt }) };
}

async function validate(file: string, effective: boolean, io: RouterCliIo, env: Env): Promise<number> {
  const parsed = await readRouterConfig(file, env);
  const problems: ConfigProblem[] = [...parsed.problems];
  if (parsed.config) problems.push(...checkRouterFiles(parsed.config, { severity: 'warning', lineOf: parsed.lineOf }));
  const report = inFileOrder(problems);

  if (report.length > 0) io.stderr(`${formatProblems(report, file)}\n`);
  const errors = report.filter((problem) => problem.severity === 'error').length;
  const warnings = report.length - errors;
  if (hasErrors(report) || !parsed.config) {
    io.stderr(`${file}: ${errors} error(s), ${warnings} warning(s); the file is not valid\n`);
    return 1;
  }
  const summary = `${file}: valid (${warnings} warning(s))\n`;
  if (effective) {
    io.stderr(summary);
    io.stdout(`# effective router configuration of ${parsed.file}, defaults filled in\n${renderEffectiveConfig(parsed.config)}`);
  } else {
    io.stdout(summary);
  }
  return 0;
}

async function run(file: string, io: RouterCliIo, env: Env): Promise<number> {
  const parsed = await readRouterConfig(file, env);
  const problems: ConfigProblem[] = [...parsed.problems];
  if (parsed.config) problems.push(...checkRouterFiles(parsed.config, { severity: 'error', lineOf: parsed.lineOf }));
  const report = inFileOrder(problems);
  if (report.length > 0) io.stderr(`${formatProblems(report, file)}\n`);
  if (hasErrors(report) || !parsed.config) {
    const errors = report.filter((problem) => problem.severity === 'error');
    if (errors.some((problem) => problem.rule === 'file-missing' && problem.path.startsWith('identity.'))) {
      io.stderr(`${file}: the router's identity files are missing: enroll it first with ./edgeward router enroll ${file} --jwt <jwt-file>\n`);
    }
    io.stderr(`${file}: ${errors.length} error(s); the router did not start\n`);
    return 1;
  }
  const logger = createJsonLogger({ sink: (line) => io.stderr(`${line}\n`), level: logLevel(env), component: 'router' });
  // Signals are watched from before the start, so a stop during start-up is not lost.
  const signalled = new Promise<string>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  const keepAlive = setInterval(() => undefined, 60_000);
  let router;
  try {
    router = await startRouter(parsed.config, { clock: systemClock, logger, version: currentVersion(env as NodeJS.ProcessEnv).version });
  } catch (error) {
    clearInterval(keepAlive);
    const message = (error as Error).message;
    logger.error('router failed to start', { error: message });
    const known = error instanceof IdentityError || error instanceof RouterStartError;
    io.stderr(`error: the router did not start: ${message}${known && error instanceof IdentityError ? `\n(enroll with ./edgeward router enroll ${file} --jwt <jwt-file> to write the identity files)` : ''}\n`);
    return 1;
  }
  const signal = await signalled;
  logger.info('signal received: stopping', { signal });
  await router.stop();
  clearInterval(keepAlive);
  // Anything still holding the event loop open (a peer slow to close) must not keep a stopped router alive.
  setTimeout(() => process.exit(process.exitCode ?? 0), 2000).unref();
  return 0;
}

async function enroll(file: string, jwtFile: string, io: RouterCliIo, env: Env): Promise<number> {
  const parsed = await readRouterConfig(file, env);
  const report = inFileOrder([...parsed.problems]);
  if (hasErrors(report) || !parsed.config) {
    io.stderr(`${formatProblems(report, file)}\n${file}: the file is not valid; the router cannot enroll\n`);
    return 1;
  }
  let jwt: string;
  try {
    jwt = (await readFile(jwtFile, 'utf8')).trim();
  } catch (error) {
    io.stderr(`error: cannot read the enrollment JWT ${jwtFile}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}\n`);
    return 1;
  }
  const logger = createJsonLogger({ sink: (line) => io.stderr(`${line}\n`), level: env.EDGEWARD_LOG_LEVEL === 'debug' ? 'debug' : 'warn', component: 'router-enroll' });
  try {
    const result = await enrollRouter(parsed.config, file, jwt, { clock: systemClock, logger });
    const lines = [`enrolled router ${result.routerId}`, ...result.written.map((path) => `  wrote ${path}`)];
    if (result.endpoints.length > 0) lines.push(`  controllers: ${result.endpoints.join(', ')}`);
    io.stdout(`${lines.join('\n')}\n`);
    for (const note of result.notes) io.stderr(`note: ${note}\n`);
    return 0;
  } catch (error) {
    const message = error instanceof EnrollmentError ? error.message : `enrollment failed: ${(error as Error).message}`;
    io.stderr(`error: ${message}\n`);
    return 1;
  }
}

function logLevel(env: Env): LogLevel {
  const level = env.EDGEWARD_LOG_LEVEL;
  return level === 'debug' || level === 'info' || level === 'warn' || level === 'error' ? level : 'info';
}
