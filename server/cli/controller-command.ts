// `./edgeward controller validate|run|restore|recover <ctrl.yml>`. Validation prints every problem at once, in file
// order, as lines or as JSON; `run` refuses to start on any error before it touches the data directory, then runs
// until SIGINT or SIGTERM; `restore` and `recover` are the offline disaster-recovery commands
// (controller/disaster-recovery.ts).
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createJsonLogger } from '../../common/log/logger.ts';
import { processLogSink } from '../../common/log/process-log-sink.ts';
import { systemClock } from '../../common/time/clock.ts';
import { formatProblems } from '../../common/config/format-problems.ts';
import { hasErrors, inFileOrder } from '../../common/config/problem.ts';
import { commandLineOf, parseCommand, reportOutcome, type CommandLine, type CommandNode, type FlagValues } from '../../common/cli/command-line.ts';
import { strictProblems, validateJson } from '../../common/cli/validate-report.ts';
import { readControllerConfig } from '../config/controller-config-file.ts';
import type { ControllerConfig } from '../config/controller-config.ts';
import type { ControllerOptions } from '../controller/controller-options.ts';
import { RecoveryRefused, recoverQuorum, restoreFromBackup } from '../controller/disaster-recovery.ts';
import { quorumProbe } from '../controller/quorum-probe.ts';
import { controllerOptionsFromConfig } from '../controller/controller-from-config.ts';
import { startController } from '../controller/controller.ts';
import { registerAgent } from '../agent/agent-registry.ts';
import { currentVersion } from '../../common/version/version-info.ts';
import { serviceNotifier } from '../../common/systemd/service-notifier.ts';
import type { CliIo } from './main.ts';

const validateUsage = `Usage: ./edgeward controller validate <ctrl.yml> [--json] [--strict]

Prints every problem of a controller config in file order (by line, then key path), each with its line, key path
and rule, on stderr. Reads the certificate files the config names; never touches cluster.dataDir, opens no port.
Exit 0 when the file is valid, 1 when any problem is an error, 2 on a wrong command line.

  --json     print one JSON object on stdout instead: {file, problems: [{severity, path, line, rule, message,
             value}], summary: {valid, errors, warnings, controllerId}}; nothing on stderr
  --strict   unknown keys are errors (in a controller config they are already: its schema is edgeward's alone)
`;

const runUsage = `Usage: ./edgeward controller run <ctrl.yml>

Runs the controller until SIGINT or SIGTERM. A config with any error stops it before it touches the data directory.
Exit 0 after a signal; 1 when it cannot start; 3 to be started again after it installed a snapshot; 4 after its raft
node failed (a supervisor restarts it).
`;

const restoreUsage = `Usage: ./edgeward controller restore <ctrl.yml> <backup-file>

Seeds a new cluster from a backup (agent controller snapshot, the backup schedule, POST /database/snapshot), on a
stopped controller whose data folder (cluster.dataDir) holds no raft.db, snapshots or ctrl.db. The whole file is
checked first: a truncated, damaged or other-format file, a backup of another trust domain, or a data folder that is
not empty is refused with the reason, and nothing is written. Then the controller is the only voter of a cluster
holding the backup's model at its raft index; start it with 'controller run' and add members with 'agent cluster
add'. Writes made after the backup was taken are not in it. Exit 0 when restored, 1 when refused.
`;

const recoverUsage = `Usage: ./edgeward controller recover <ctrl.yml>

Quorum recovery, for a cluster that lost a majority of its voters for good: on a stopped surviving member, applies
everything in its raft log and makes it the only voter of the cluster, keeping its data. Refused while the
controller runs (its model store is locked), or while a majority of the voters, this one included, still answer
as controllers with state of their own (they can elect a leader without recovery). Writes the lost members had
and this one never received are lost. Start it with 'controller run', then add fresh members with 'agent cluster
add'. Exit 0 when recovered, 1 when refused.
`;

const usage = `Usage: ./edgeward controller <subcommand> <ctrl.yml>

Subcommands:
  validate <ctrl.yml> [--json] [--strict]   print every problem in file order (exit 1 on errors)
  run <ctrl.yml>                            run the controller until SIGINT/SIGTERM
                                            (exit 3: restart after a snapshot; 4: the raft node failed)
  restore <ctrl.yml> <backup-file>          seed a new one-member cluster from a backup (stopped, empty data folder)
  recover <ctrl.yml>                        make a stopped survivor of a lost majority the only voter

'./edgeward controller <subcommand> --help' describes one.
`;

const tree: CommandNode = {
  usage,
  subcommands: {
    validate: {
      usage: validateUsage,
      flags: [
        { name: 'json', kind: 'boolean' },
        { name: 'strict', kind: 'boolean' },
      ],
      arguments: ['ctrl.yml'],
      min: 1,
      max: 1,
      example: ['ctrl.yml'],
    },
    run: { usage: runUsage, flags: [], arguments: ['ctrl.yml'], min: 1, max: 1, example: ['ctrl.yml'] },
    restore: { usage: restoreUsage, flags: [], arguments: ['ctrl.yml', 'backup-file'], min: 2, max: 2, example: ['ctrl.yml', 'model-1234-2026-11-29T08-00-00-000Z.json'] },
    recover: { usage: recoverUsage, flags: [], arguments: ['ctrl.yml'], min: 1, max: 1, example: ['ctrl.yml'] },
  },
};

/** `./edgeward controller ...`: its subcommands, and the parse the command runs first. */
export const controllerCommandLine: CommandLine = commandLineOf('controller', tree);

export async function runControllerCommand(args: string[], io: CliIo): Promise<number> {
  const outcome = parseCommand('controller', tree, args);
  if (outcome.kind !== 'run') return reportOutcome(outcome, io);
  const [action] = outcome.value.path;
  const file = outcome.value.positional[0]!;
  if (action === 'validate') return validate(file, outcome.value.flags, io);
  const loaded = await loadConfig(file, io, action === 'run' ? 'the controller did not start' : `nothing was ${action}d`);
  if (!loaded) return 1;
  if (action === 'restore' || action === 'recover') return runDisasterRecovery(action, loaded.options, outcome.value.positional[1], io);
  return run(loaded.config, loaded.options, io);
}

/** The config and the options it makes, or undefined after printing every problem. */
async function loadConfig(file: string, io: CliIo, consequence: string): Promise<{ config: ControllerConfig; options: ControllerOptions } | undefined> {
  const { config, problems } = await readControllerConfig(file);
  const report = [...problems];
  let options;
  if (config) {
    const runtime = await controllerOptionsFromConfig(config);
    report.push(...runtime.problems);
    options = runtime.options;
  }
  const ordered = inFileOrder(report);
  if (ordered.length > 0) io.stderr(`${formatProblems(ordered, file)}\n`);
  if (hasErrors(ordered) || !config || !options) {
    io.stderr(`${file}: ${ordered.filter((problem) => problem.severity === 'error').length} error(s); ${consequence}\n`);
    return undefined;
  }
  return { config, options };
}

/** `controller restore` and `controller recover`: offline, on this controller's data folder; logs to stderr. */
async function runDisasterRecovery(action: 'restore' | 'recover', options: ControllerOptions, backupFile: string | undefined, io: CliIo): Promise<number> {
  const logger = createJsonLogger({ sink: (line) => io.stderr(`${line}\n`), level: 'warn', component: 'controller', fields: { controllerId: options.id } });
  try {
    if (action === 'restore') {
      const restored = await restoreFromBackup(options, resolve(backupFile!), logger, Date.now());
      const { header } = restored;
      io.stdout(
        `restored ${restored.rows} rows of cluster ${header.clusterId || '(no id)'} at raft index ${header.index}, term ${header.term} (backup of ${header.controllerId}, ` +
          `${header.takenAt}, edgeward ${header.edgewardVersion}) into ${options.dataDir}; ${options.id} is its only voter: start it, then add members\n`,
      );
      return 0;
    }
    const recovered = await recoverQuorum(options, quorumProbe(options, currentVersion().version), logger, Date.now());
    const lost = [...recovered.previous.voters, ...recovered.previous.nonVoters].filter((id) => id !== options.id);
    io.stdout(
      `recovered: ${options.id} is the only voter of cluster ${recovered.clusterId || '(no id)'} at raft index ${recovered.index}, term ${recovered.term} ` +
        `(${recovered.applied} log entries applied); removed from the configuration: ${lost.join(', ') || 'none'}. Start it, then add fresh members\n`,
    );
    return 0;
  } catch (error) {
    // A refusal wrote nothing; another failure (a full disk) left what running the command again completes.
    io.stderr(`error: ${action} ${error instanceof RecoveryRefused ? 'refused' : 'failed'}: ${(error as Error).message}\n`);
    return 1;
  }
}

async function run(config: ControllerConfig, options: ControllerOptions, io: CliIo): Promise<number> {
  // Lines leave in one write per turn of the event loop (a circuit's lines among many), flushed at exit.
  let write: (text: string) => void = (text) => void process.stderr.write(text);
  if (config.log.file) {
    mkdirSync(dirname(config.log.file), { recursive: true });
    const stream = createWriteStream(config.log.file, { flags: 'a', mode: 0o640 });
    write = (text) => void stream.write(text);
  }
  const logLines = processLogSink(write);
  const logger = createJsonLogger({ sink: logLines.sink, level: config.log.level, component: 'controller', fields: { controllerId: options.id } });
  const version = currentVersion();
  // The process's OpenTelemetry SDK (NodeSDK): the meter provider behind /metrics and, when configured, traces.
  // Loaded here, not with this module: the edgeward command loads every subcommand, and NodeSDK takes ~0.3 s.
  const { startProcessTelemetry, telemetryPlan } = await import('../telemetry/process-telemetry.ts');
  const plan = telemetryPlan(config.telemetry, process.env);
  for (const warning of plan.warnings) logger.warn('telemetry setting ignored', { reason: warning });
  const telemetry = startProcessTelemetry(plan, { id: options.id, version: version.version });
  if (plan.traces) logger.info('traces exported over OTLP/HTTP', { url: plan.traces.url, from: plan.traces.source });
  else if (plan.sdkDisabled) logger.info('OTEL_SDK_DISABLED is set: no traces, and /metrics comes from the controller\'s own meter provider');
  let controller;
  try {
    controller = await startController(options, { logger, clock: systemClock, version, telemetry: telemetry.controller });
  } catch (error) {
    await telemetry.shutdown().catch(() => undefined);
    logger.error('controller failed to start', { error: (error as Error).message });
    logLines.flush();
    io.stderr(`error: the controller did not start: ${(error as Error).message}\n`);
    // Whatever half-started (a listener, a timer) must not keep a failed controller alive: its supervisor restarts it.
    setTimeout(() => process.exit(1), 200).unref();
    return 1;
  }
  let unregister = () => undefined as void;
  try {
    unregister = registerAgent({ id: options.id, pid: process.pid, socket: options.agentSocket });
  } catch (error) {
    logger.warn('could not register the agent socket for discovery; use --socket with ./edgeward agent', { error: (error as Error).message });
  }
  // systemd (Type=notify): ready once the APIs and the control listener are up; watchdog pings from this event loop.
  const notifier = serviceNotifier({ onError: (message) => logger.warn('systemd notification not sent', { error: message }) });
  notifier.ready(`controller ${options.id} serving`);

  let signalled!: () => void;
  const signal = new Promise<void>((resolve) => (signalled = resolve));
  process.once('SIGINT', () => signalled());
  process.once('SIGTERM', () => signalled());
  const reason = await Promise.race([
    signal.then(() => 'signal' as const),
    controller.restartRequired.then(() => 'restart' as const),
    controller.failed.then((error) => {
      // Meanwhile health, sessions and writes answer 503 CONTROLLER_UNAVAILABLE, so that probes, load balancers and
      // the requests in flight get a clear answer before the listeners close.
      logger.error('controller unavailable after a raft failure; exiting for a restart', { error: error.message, exitInMs: failedExitDelayMs });
      return 'failed' as const;
    }),
  ]);
  if (reason === 'failed') await Promise.race([signal, new Promise((resolve) => setTimeout(resolve, failedExitDelayMs))]);
  logger.info(reason === 'restart' ? 'shutting down for a restart' : reason === 'failed' ? 'shutting down after a failure' : 'shutting down');
  notifier.stopping();
  unregister();
  if (reason === 'failed') {
    // Whatever the failure left hanging (a write that never returns) must not keep the failed process alive.
    setTimeout(() => process.exit(failedExitCode), failedCloseLimitMs).unref();
    await controller.close().catch((error: Error) => logger.warn('closing after the failure did not finish cleanly', { error: error.message }));
    await telemetry.shutdown().catch(() => undefined);
    return failedExitCode;
  }
  await controller.close();
  // After the controller: the spans of its last requests are flushed to the collector.
  await telemetry.shutdown().catch((error: Error) => logger.warn('telemetry did not shut down cleanly', { error: error.message }));
  // A non-zero exit asks the supervisor (systemd's Restart=on-failure, the demo's) to start us again.
  return reason === 'restart' ? 3 : 0;
}

/** `controller validate`: every problem in file order, as lines on stderr or one JSON object on stdout. */
async function validate(file: string, flags: FlagValues, io: CliIo): Promise<number> {
  const { config, problems } = await readControllerConfig(file);
  const found = [...problems];
  let id: string | undefined;
  if (config) {
    const runtime = await controllerOptionsFromConfig(config);
    found.push(...runtime.problems);
    id = runtime.options?.id;
  }
  const report = inFileOrder(flags.bool('strict') ? strictProblems(found) : found);
  const valid = !hasErrors(report) && config !== undefined && id !== undefined;
  if (flags.bool('json')) {
    io.stdout(validateJson(file, report, { controllerId: valid ? id : null }));
    return valid ? 0 : 1;
  }
  if (report.length > 0) io.stderr(`${formatProblems(report, file)}\n`);
  if (!valid) {
    io.stderr(`${file}: ${report.filter((problem) => problem.severity === 'error').length} error(s); the file is not valid\n`);
    return 1;
  }
  io.stdout(`${file}: valid (controller ${id})\n`);
  return 0;
}

/** How long a controller whose raft node failed keeps answering 503 before it exits, and its exit code. */
export const failedExitDelayMs = 3000;
export const failedExitCode = 4;
/** A close that takes longer than this after a failure is cut short by exiting. */
const failedCloseLimitMs = 10_000;
