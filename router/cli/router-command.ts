// `./edgeward router validate|run|enroll ...`.
// - validate <router.yml> [--effective] [--json] [--strict]: every error and warning at once, in file order, as
//   `<file>:<line>: <severity>: <key path>: <message> (rule: <rule>)` on stderr, or one JSON object on stdout; with
//   --effective, the whole configuration with defaults filled in; --strict makes unknown keys errors. Exit 1 on any
//   error, 0 with only warnings, 2 on misuse.
// - run <router.yml>: refuses to start on any error (missing identity files included: enroll first), then runs the
//   router until SIGINT/SIGTERM, logging JSON lines on stderr (EDGEWARD_LOG_LEVEL: debug, info, warn, error).
// - enroll <router.yml> --jwt <jwt-file>: writes the identity files from an edge router's enrollment JWT.

import { readFile } from 'node:fs/promises';
import { formatProblems } from '../../common/config/format-problems.ts';
import { hasErrors, inFileOrder } from '../../common/config/problem.ts';
import { commandLineOf, parseCommand, reportOutcome, type CommandLine, type CommandNode, type FlagValues } from '../../common/cli/command-line.ts';
import { strictProblems, validateJson } from '../../common/cli/validate-report.ts';
import type { ConfigProblem } from '../../common/config/problem.ts';
import { createJsonLogger, type LogLevel } from '../../common/log/logger.ts';
import { processLogSink } from '../../common/log/process-log-sink.ts';
import { systemClock } from '../../common/time/clock.ts';
import { currentVersion } from '../../common/version/version-info.ts';
import { checkRouterFiles, readRouterConfig } from '../config-file.ts';
import { effectiveConfigDocument, renderEffectiveConfig } from '../config/effective-config.ts';
import { enrollRouter, EnrollmentError } from '../enroll/enroll-router.ts';
import { IdentityError } from '../run/identity-material.ts';
import { RouterStartError, startRouter } from '../run/router-process.ts';
import { serviceNotifier } from '../../common/systemd/service-notifier.ts';

export interface RouterCliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

type Env = Readonly<Record<string, string | undefined>>;

const validateUsage = `Usage: ./edgeward router validate <router.yml> [--effective] [--json] [--strict]

Prints every error and warning of a router config in file order (by line, then key path), each as
<file>:<line>: <severity>: <key path>: <message> (rule: <rule>), on stderr. Identity files that do not exist yet are
warnings (enrollment writes them). Exit 0 when there is no error (warnings allowed), 1 on any error, 2 on a wrong
command line.

  --effective  also print the whole configuration, defaults filled in, as YAML on stdout
  --json       print one JSON object on stdout instead: {file, problems: [{severity, path, line, rule, message,
               value}], summary: {valid, errors, warnings}}, plus "effective", the configuration, with --effective
               on a valid file; nothing on stderr
  --strict     unknown keys are errors, not warnings
`;

const runUsage = `Usage: ./edgeward router run <router.yml>

Runs the router until SIGINT or SIGTERM: control channel, links, health checks, metrics. Refuses to start on any
config error, a missing identity file included (enroll first). JSON log lines on stderr; EDGEWARD_LOG_LEVEL=debug,
info, warn or error. Exit 0 after a signal, 1 when it cannot start.
`;

const enrollUsage = `Usage: ./edgeward router enroll <router.yml> --jwt <jwt-file>

Enrolls with an edge router's one-time JWT: generates the key if missing, writes cert, server_cert, ca and the
endpoints file named in the config. Exit 0 when enrolled, 1 when the controller refused or a file could not be
written.
`;

const usage = `Usage: ./edgeward router <subcommand> <router.yml> ...

Subcommands:
  validate <router.yml> [--effective] [--json] [--strict]
      print every error and warning with its line and key path (exit 1 on errors, 0 with only warnings)
  run <router.yml>
      run the router until SIGINT/SIGTERM (JSON log lines on stderr; EDGEWARD_LOG_LEVEL=debug|info|warn|error)
  enroll <router.yml> --jwt <jwt-file>
      enroll with an edge router's one-time JWT: generate the key if missing, write cert, server_cert, ca
      and the endpoints file

'./edgeward router <subcommand> --help' describes one.
`;

const tree: CommandNode = {
  usage,
  subcommands: {
    validate: {
      usage: validateUsage,
      flags: [
        { name: 'effective', kind: 'boolean' },
        { name: 'json', kind: 'boolean' },
        { name: 'strict', kind: 'boolean' },
      ],
      arguments: ['router.yml'],
      min: 1,
      max: 1,
      example: ['router.yml', '--effective'],
    },
    run: { usage: runUsage, flags: [], arguments: ['router.yml'], min: 1, max: 1, example: ['router.yml'] },
    enroll: { usage: enrollUsage, flags: [{ name: 'jwt', kind: 'string', required: true }], arguments: ['router.yml'], min: 1, max: 1, example: ['router.yml', '--jwt', 'router.jwt'] },
  },
};

/** `./edgeward router ...`: its subcommands, and the parse the command runs first. */
export const routerCommandLine: CommandLine = commandLineOf('router', tree);

export async function runRouterCommand(args: readonly string[], io: RouterCliIo, env: Env = process.env): Promise<number> {
  const outcome = parseCommand('router', tree, args);
  if (outcome.kind !== 'run') return reportOutcome(outcome, io);
  const { path, positional, flags } = outcome.value;
  const file = positional[0]!;
  switch (path[0]) {
    case 'validate':
      return validate(file, flags, io, env);
    case 'run':
      return run(file, io, env);
    default:
      return enroll(file, flags.text('jwt')!, io, env);
  }
}

async function validate(file: string, flags: FlagValues, io: RouterCliIo, env: Env): Promise<number> {
  const parsed = await readRouterConfig(file, env);
  const problems: ConfigProblem[] = [...parsed.problems];
  if (parsed.config) problems.push(...checkRouterFiles(parsed.config, { severity: 'warning', lineOf: parsed.lineOf }));
  const report = inFileOrder(flags.bool('strict') ? strictProblems(problems) : problems);
  const valid = !hasErrors(report) && parsed.config !== undefined;
  const effective = flags.bool('effective') === true;

  if (flags.bool('json')) {
    io.stdout(validateJson(file, report, {}, valid && effective ? { effective: effectiveConfigDocument(parsed.config!) } : {}));
    return valid ? 0 : 1;
  }
  if (report.length > 0) io.stderr(`${formatProblems(report, file)}\n`);
  const errors = report.filter((problem) => problem.severity === 'error').length;
  const warnings = report.length - errors;
  if (!valid) {
    io.stderr(`${file}: ${errors} error(s), ${warnings} warning(s); the file is not valid\n`);
    return 1;
  }
  const summary = `${file}: valid (${warnings} warning(s))\n`;
  if (effective) {
    io.stderr(summary);
    io.stdout(`# effective router configuration of ${parsed.file}, defaults filled in\n${renderEffectiveConfig(parsed.config!)}`);
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
  // One write per turn of the event loop (a busy router logs several circuit lines per turn); flushed at exit.
  const logLines = processLogSink((text) => io.stderr(text));
  const logger = createJsonLogger({ sink: logLines.sink, level: logLevel(env), component: 'router' });
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
    logLines.flush();
    const known = error instanceof IdentityError || error instanceof RouterStartError;
    io.stderr(`error: the router did not start: ${message}${known && error instanceof IdentityError ? `\n(enroll with ./edgeward router enroll ${file} --jwt <jwt-file> to write the identity files)` : ''}\n`);
    return 1;
  }
  // systemd (Type=notify): ready once the control channel is dialled and the health checks listen.
  const notifier = serviceNotifier({ onError: (message) => logger.warn('systemd notification not sent', { error: message }) });
  notifier.ready('router serving');
  const signal = await signalled;
  logger.info('signal received: stopping', { signal });
  notifier.stopping();
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
