// `./edgeward alerts run|validate|pager ...`. `validate` prints every problem of an alerts.yml at once; `run` refuses
// to start on any error, then runs the daemon until SIGINT or SIGTERM, saving its state before it exits.
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { formatProblems } from '../../common/config/format-problems.ts';
import { hasErrors } from '../../common/config/problem.ts';
import { createJsonLogger } from '../../common/log/logger.ts';
import { systemClock } from '../../common/time/clock.ts';
import { readAlertsConfig } from '../config/alerts-config-file.ts';
import { startAlertsDaemon } from '../daemon/alerts-daemon.ts';
import { serveUntilSignal } from '../../common/systemd/serve-until-signal.ts';
import { commandLineOf, parseCommand, reportOutcome, type CommandLine, type CommandNode } from '../../common/cli/command-line.ts';
import { pagerCommand, runPagerCommand } from '../pager/pager-command.ts';

export interface AlertsCommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

const usage = `Usage: ./edgeward alerts <subcommand> ...

Subcommands:
  validate <alerts.yml>                  print every problem in an alerts daemon config (exit 1 on errors)
  run <alerts.yml>                       tail the controllers' logs and event files, poll their health and
                                         metrics, and send pages and warnings to Alertmanager until
                                         SIGINT/SIGTERM (docs/alerts.md)
  pager --listen <host:port> --log <file>
                                         a local receiver for Alertmanager's webhook notifications

'./edgeward alerts <subcommand> --help' describes one.
`;

const validateUsage = `Usage: ./edgeward alerts validate <alerts.yml>

Prints every problem of an alerts daemon config, each with its line, key path and rule, on stderr.
Exit 0 when the file is valid, 1 on any error, 2 on a wrong command line.
`;

const runUsage = `Usage: ./edgeward alerts run <alerts.yml>

Runs the alerts daemon until SIGINT or SIGTERM: tails the controllers' logs and event files, polls their health and
metrics, and sends pages and warnings to Alertmanager (docs/alerts.md). Refuses to start on any config error.
Exit 0 after a signal, 1 when it cannot start.
`;

const tree: CommandNode = {
  usage,
  subcommands: {
    validate: { usage: validateUsage, flags: [], arguments: ['alerts.yml'], min: 1, max: 1, example: ['alerts.yml'] },
    run: { usage: runUsage, flags: [], arguments: ['alerts.yml'], min: 1, max: 1, example: ['alerts.yml'] },
    pager: pagerCommand,
  },
};

/** `./edgeward alerts ...`: its subcommands, and the parse the command runs first. */
export const alertsCommandLine: CommandLine = commandLineOf('alerts', tree);


export async function runAlertsCommand(args: string[], io: AlertsCommandIo): Promise<number> {
  const outcome = parseCommand('alerts', tree, args);
  if (outcome.kind !== 'run') return reportOutcome(outcome, io);
  const [action] = outcome.value.path;
  if (action === 'pager') return runPagerCommand(args.slice(1), io);
  const file = outcome.value.positional[0]!;

  const { config, problems } = await readAlertsConfig(file);
  if (problems.length > 0) io.stderr(`${formatProblems(problems, file)}\n`);
  if (hasErrors(problems) || !config) {
    const errors = problems.filter((problem) => problem.severity === 'error').length;
    io.stderr(`${file}: ${errors} error(s); ${action === 'run' ? 'the alerts daemon did not start' : 'the file is not valid'}\n`);
    return 1;
  }
  if (action === 'validate') {
    const files = config.controllers.reduce((count, controller) => count + (controller.logFile ? 1 : 0) + (controller.eventsFile?.length ?? 0), 0);
    io.stdout(`${file}: valid (cluster ${config.cluster}: ${config.controllers.length} controller(s), ${files} file(s), ${config.alertmanager.urls.length} Alertmanager(s))\n`);
    return 0;
  }

  let sink: (line: string) => void = (line) => process.stderr.write(`${line}\n`);
  if (config.log.file) {
    mkdirSync(dirname(config.log.file), { recursive: true });
    const stream = createWriteStream(config.log.file, { flags: 'a', mode: 0o640 });
    sink = (line) => void stream.write(`${line}\n`);
  }
  const logger = createJsonLogger({ sink, level: config.log.level, component: 'alerts', fields: { cluster: config.cluster } });
  let daemon;
  try {
    daemon = await startAlertsDaemon(config, { clock: systemClock, logger });
  } catch (error) {
    logger.error('alerts daemon failed to start', { error: (error as Error).message });
    io.stderr(`error: the alerts daemon did not start: ${(error as Error).message}\n`);
    setTimeout(() => process.exit(1), 200).unref();
    return 1;
  }
  io.stdout(`alerts daemon: /metrics and /health on http://${daemon.address.host}:${daemon.address.port}\n`);
  // systemd (Type=notify): ready now, watchdog pings from this event loop; stopped on SIGINT/SIGTERM.
  serveUntilSignal(daemon, { name: 'alerts daemon', readyStatus: `alerts daemon on ${daemon.address.host}:${daemon.address.port}`, logger, stderr: io.stderr });
  // The daemon's server, watcher and timers keep the process alive until the signal.
  return -1;
}
