// `./edgeward dashboard run|validate|build ...`. `validate` prints every problem of a dashboard.yml at once; `run`
// refuses to start on any error, builds the page when its build is missing or stale, then serves it until SIGINT or
// SIGTERM; `build` builds the page (what an install step runs ahead of time).
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { formatProblems } from '../../common/config/format-problems.ts';
import { hasErrors } from '../../common/config/problem.ts';
import { createJsonLogger } from '../../common/log/logger.ts';
import { systemClock } from '../../common/time/clock.ts';
import { readDashboardConfig } from '../config/dashboard-config-file.ts';
import { commandLineOf, parseCommand, reportOutcome, type CommandLine, type CommandNode } from '../../common/cli/command-line.ts';
import { buildNeeded, ensureBuilt, runNextBuild } from '../page-server/next-app.ts';
import { startDashboard } from '../page-server/start-dashboard.ts';
import { serveUntilSignal } from '../../common/systemd/serve-until-signal.ts';

export interface DashboardCommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

const usage = `Usage: ./edgeward dashboard <subcommand> ...

Subcommands:
  validate <dashboard.yml>   print every problem in a status page config (exit 1 on errors)
  run <dashboard.yml>        serve the status page until SIGINT/SIGTERM (docs/status-page.md);
                             builds it first when its build is missing or older than its sources
  build [--force]            build the page (next build into dashboard/.next) if needed, or always

'./edgeward dashboard <subcommand> --help' describes one.
`;

const validateUsage = `Usage: ./edgeward dashboard validate <dashboard.yml>

Prints every problem of a status page config, each with its line, key path and rule, on stderr.
Exit 0 when the file is valid, 1 on any error, 2 on a wrong command line.
`;

const runUsage = `Usage: ./edgeward dashboard run <dashboard.yml>

Serves the status page until SIGINT or SIGTERM (docs/status-page.md); builds it first when its build is missing or
older than its sources. Refuses to start on any config error. Exit 0 after a signal, 1 when it cannot start.
`;

const buildUsage = `Usage: ./edgeward dashboard build [--force]

Builds the status page (next build into dashboard/.next) when its build is missing or older than its sources.
  --force   build it even when the build is current
`;

const tree: CommandNode = {
  usage,
  subcommands: {
    validate: { usage: validateUsage, flags: [], arguments: ['dashboard.yml'], min: 1, max: 1, example: ['dashboard.yml'] },
    run: { usage: runUsage, flags: [], arguments: ['dashboard.yml'], min: 1, max: 1, example: ['dashboard.yml'] },
    build: { usage: buildUsage, flags: [{ name: 'force', kind: 'boolean' }], arguments: [], min: 0, max: 0, example: ['--force'] },
  },
};

/** `./edgeward dashboard ...`: its subcommands, and the parse the command runs first. */
export const dashboardCommandLine: CommandLine = commandLineOf('dashboard', tree);


export async function runDashboardCommand(args: string[], io: DashboardCommandIo): Promise<number> {
  const outcome = parseCommand('dashboard', tree, args);
  if (outcome.kind !== 'run') return reportOutcome(outcome, io);
  const [action] = outcome.value.path;
  if (action === 'build') return build(outcome.value.flags.bool('force') === true, io);
  const file = outcome.value.positional[0]!;

  const { config, problems } = await readDashboardConfig(file);
  if (problems.length > 0) io.stderr(`${formatProblems(problems, file)}\n`);
  if (hasErrors(problems) || !config) {
    const errors = problems.filter((problem) => problem.severity === 'error').length;
    io.stderr(`${file}: ${errors} error(s); ${action === 'run' ? 'the status page did not start' : 'the file is not valid'}\n`);
    return 1;
  }
  if (action === 'validate') {
    const daemon = config.alertsDaemon ? `alerts daemon ${config.alertsDaemon.url}` : 'no alerts daemon';
    io.stdout(`${file}: valid (${config.controllers.length} controller(s), ${config.routers.length} router(s), ${daemon}; listens on ${config.listen.host}:${config.listen.port}, login ${config.auth === 'required' ? 'required' : 'not asked (loopback only)'})\n`);
    return 0;
  }

  let sink: (line: string) => void = (line) => process.stderr.write(`${line}\n`);
  if (config.log.file) {
    mkdirSync(dirname(config.log.file), { recursive: true });
    const stream = createWriteStream(config.log.file, { flags: 'a', mode: 0o640 });
    sink = (line) => void stream.write(`${line}\n`);
  }
  const logger = createJsonLogger({ sink, level: config.log.level, component: 'dashboard' });
  let dashboard;
  try {
    dashboard = await startDashboard(config, { clock: systemClock, logger, progress: (text) => io.stdout(`status page: ${text}\n`) });
  } catch (error) {
    logger.error('status page failed to start', { error: (error as Error).message });
    io.stderr(`error: the status page did not start: ${(error as Error).message}\n`);
    setTimeout(() => process.exit(1), 200).unref();
    return 1;
  }
  if (dashboard.build.built) io.stdout(`status page: built in ${(dashboard.build.ms / 1000).toFixed(1)} s\n`);
  io.stdout(`status page: ${dashboard.url} (${config.auth === 'required' ? 'login required' : 'no login: loopback only'})\n`);
  // systemd (Type=notify): ready now, watchdog pings from this event loop; stopped on SIGINT/SIGTERM.
  serveUntilSignal(dashboard, { name: 'status page', readyStatus: `status page ${dashboard.url}`, logger, stderr: io.stderr });
  // The server and the gatherer's timer keep the process alive until the signal.
  return -1;
}

async function build(force: boolean, io: DashboardCommandIo): Promise<number> {
  const started = Date.now();
  try {
    if (force) await runNextBuild();
    else if (buildNeeded() === undefined) {
      io.stdout('status page: the build is current (dashboard/.next)\n');
      return 0;
    } else await ensureBuilt(createJsonLogger({ sink: () => undefined, level: 'error' }), (text) => io.stdout(`status page: ${text}\n`));
  } catch (error) {
    io.stderr(`error: ${(error as Error).message}\n`);
    return 1;
  }
  io.stdout(`status page: built in ${((Date.now() - started) / 1000).toFixed(1)} s (dashboard/.next)\n`);
  return 0;
}
