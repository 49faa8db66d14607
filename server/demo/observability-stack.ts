// The observability stack of one cluster, laid out in one folder and described as the commands that run it:
// Debian's Prometheus (scraping every controller, whose /metrics also carries its routers' metrics, the alerts
// daemon and Alertmanager, with the generated rules), Debian's Alertmanager (the generated routing, pages and
// warnings to webhooks), the alerts daemon (`./edgeward alerts run`) and the local pager receiver
// (`./edgeward alerts pager`). The demo supervises these commands; the end-to-end tests start them with their own
// webhook receiver in place of the pager. Both get the same files from here.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml, stringify as yamlText } from 'yaml';
import { alertmanagerConfig, type RouteTiming } from '../../alerts/alertmanager/alertmanager-config.ts';
import { prometheusConfig } from '../../alerts/prometheus/prometheus-config.ts';
import { rulesFileName, rulesFileText } from '../../alerts/rules/rules-files.ts';
import { edgewardCommand } from './child-process.ts';

export const prometheusBinary = '/usr/bin/prometheus';
export const alertmanagerBinary = '/usr/bin/prometheus-alertmanager';

export interface StackController {
  readonly id: string;
  /** `https://host:port` of the web listener that serves `/metrics` and `/health-checks`; without it the controller
   * is only followed through its files (no scrape, no polls). */
  readonly origin?: string;
  readonly logFile: string;
  readonly eventsFile: string;
  readonly preferredLeader?: boolean;
}

export interface StackPorts {
  readonly prometheus: number;
  readonly alertmanager: number;
  /** The alerts daemon's /metrics and /health. */
  readonly alertsDaemon: number;
  /** The local pager receiver; needed unless `receivers` point elsewhere. */
  readonly pager?: number;
}

/** Keys of alerts.yml's sections written over the defaults (tests shorten windows; see docs/alerts.md). */
export interface AlertsDaemonSettings {
  readonly rules?: Readonly<Record<string, unknown>>;
  readonly alertmanager?: Readonly<Record<string, unknown>>;
  readonly files?: Readonly<Record<string, unknown>>;
}

export interface ObservabilityStackOptions {
  /** The `cluster` label of every series and alert. */
  readonly cluster: string;
  readonly controllers: readonly StackController[];
  /** The bundle that verifies the controllers' HTTPS certificates; needed once a controller has an origin. */
  readonly caBundle?: string;
  /** Where the stack's configs, data and logs go (created if missing). */
  readonly dataDir: string;
  readonly ports: StackPorts;
  /** Prometheus' scrape and evaluation interval; 15s, as the generated rules are tested at. */
  readonly scrapeInterval?: string;
  /** Where Alertmanager sends pages and warnings; the local pager receiver's /pager and /warnings when unset. */
  readonly receivers?: { readonly pagerUrl: string; readonly warningUrl: string };
  readonly pageTiming?: RouteTiming;
  readonly warningTiming?: RouteTiming;
  readonly alertsDaemon?: AlertsDaemonSettings;
}

/** One process of the stack: what to run, where its output goes, and the URL that answers 200 once it is ready. */
export interface StackCommand {
  readonly name: string;
  readonly file: string;
  readonly args: readonly string[];
  readonly logFile: string;
  readonly readyUrl: string;
}

export interface ObservabilityStack {
  readonly files: {
    readonly prometheusConfig: string;
    readonly rules: string;
    readonly alertmanagerConfig: string;
    readonly alertsConfig: string;
    /** Where the local pager receiver appends every alert it is sent (created empty when the receiver is part of the stack). */
    readonly pagerLog: string;
  };
  readonly urls: {
    readonly prometheus: string;
    readonly alertmanager: string;
    /** The alerts daemon's /metrics. */
    readonly alertsMetrics: string;
    /** The local pager receiver's base URL, when it is part of the stack. */
    readonly pager?: string;
  };
  readonly commands: {
    readonly alertmanager: StackCommand;
    readonly alertsDaemon: StackCommand;
    /** Absent when no controller has an origin: there is nothing to scrape. */
    readonly prometheus?: StackCommand;
    /** Absent when `receivers` point elsewhere: nothing would reach it. */
    readonly pager?: StackCommand;
  };
}

/** The folders and files of the stack under its data folder. */
function stackPaths(dataDir: string) {
  return {
    prometheusDir: join(dataDir, 'prometheus'),
    prometheusConfig: join(dataDir, 'prometheus', 'prometheus.yml'),
    rules: join(dataDir, 'prometheus', rulesFileName),
    prometheusData: join(dataDir, 'prometheus', 'data'),
    prometheusLog: join(dataDir, 'prometheus', 'prometheus.log'),
    alertmanagerDir: join(dataDir, 'alertmanager'),
    alertmanagerConfig: join(dataDir, 'alertmanager', 'alertmanager.yml'),
    alertmanagerData: join(dataDir, 'alertmanager', 'data'),
    alertmanagerLog: join(dataDir, 'alertmanager', 'alertmanager.log'),
    alertsDir: join(dataDir, 'alerts'),
    alertsConfig: join(dataDir, 'alerts', 'alerts.yml'),
    alertsState: join(dataDir, 'alerts', 'state'),
    alertsLog: join(dataDir, 'alerts', 'alerts.log'),
    pagerDir: join(dataDir, 'pager'),
    pagerLog: join(dataDir, 'pager', 'pager.jsonl'),
    pagerOutput: join(dataDir, 'pager', 'pager.log'),
  };
}

const loopback = '127.0.0.1';
const hostPort = (port: number) => `${loopback}:${port}`;

/** Writes prometheus.yml, the generated rules, alertmanager.yml and alerts.yml, and gives the commands that run them. */
export function layOutObservabilityStack(options: ObservabilityStackOptions): ObservabilityStack {
  const paths = stackPaths(options.dataDir);
  for (const dir of [paths.prometheusDir, paths.prometheusData, paths.alertmanagerDir, paths.alertmanagerData, paths.alertsDir, paths.pagerDir]) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const { ports } = options;
  const pagerUrl = options.receivers || ports.pager === undefined ? undefined : `http://${hostPort(ports.pager)}`;
  const urls = {
    prometheus: `http://${hostPort(ports.prometheus)}`,
    alertmanager: `http://${hostPort(ports.alertmanager)}`,
    alertsMetrics: `http://${hostPort(ports.alertsDaemon)}/metrics`,
    ...(pagerUrl ? { pager: pagerUrl } : {}),
  };
  const receivers = options.receivers ?? (pagerUrl ? { pagerUrl: `${pagerUrl}/pager`, warningUrl: `${pagerUrl}/warnings` } : undefined);
  if (!receivers) throw new Error('layOutObservabilityStack: give the pager receiver a port, or receivers for Alertmanager to send to');
  const interval = options.scrapeInterval ?? '15s';

  const scraped = options.controllers.flatMap((controller) => (controller.origin === undefined ? [] : [{ id: controller.id, target: new URL(controller.origin).host }]));
  if (scraped.length > 0) {
    if (options.caBundle === undefined) throw new Error('layOutObservabilityStack: the controllers\' /metrics are HTTPS: caBundle is needed');
    writeFileSync(paths.rules, rulesFileText());
    writeFileSync(
      paths.prometheusConfig,
      prometheusConfig({
        cluster: options.cluster,
        controllers: scraped,
        caFile: options.caBundle,
        alertsDaemonTargets: [hostPort(ports.alertsDaemon)],
        alertmanagerUrls: [urls.alertmanager],
        ruleFiles: [paths.rules],
        scrapeInterval: interval,
        evaluationInterval: interval,
        scrapeAlertmanagers: true,
        prometheusTarget: hostPort(ports.prometheus),
      }),
    );
  }

  writeFileSync(
    paths.alertmanagerConfig,
    alertmanagerConfig({
      pager: { kind: 'webhook', url: receivers.pagerUrl },
      warningUrl: receivers.warningUrl,
      ...(options.pageTiming ? { pageTiming: options.pageTiming } : {}),
      ...(options.warningTiming ? { warningTiming: options.warningTiming } : {}),
    }),
  );

  writeFileSync(paths.alertsConfig, alertsDaemonConfig(options, urls.alertmanager, paths.alertsState));
  // The pager log exists from the start, so that an operator can tail it before the first page.
  if (pagerUrl) closeSync(openSync(paths.pagerLog, 'a', 0o640));

  const daemon = edgewardCommand(['alerts', 'run', paths.alertsConfig]);
  return {
    files: {
      prometheusConfig: paths.prometheusConfig,
      rules: paths.rules,
      alertmanagerConfig: paths.alertmanagerConfig,
      alertsConfig: paths.alertsConfig,
      pagerLog: paths.pagerLog,
    },
    urls,
    commands: {
      alertmanager: {
        name: 'alertmanager',
        file: alertmanagerBinary,
        args: [
          `--config.file=${paths.alertmanagerConfig}`,
          `--storage.path=${paths.alertmanagerData}`,
          `--web.listen-address=${hostPort(ports.alertmanager)}`,
          // One Alertmanager: no gossip port to open, nobody to gossip with.
          '--cluster.listen-address=',
        ],
        logFile: paths.alertmanagerLog,
        readyUrl: `${urls.alertmanager}/-/ready`,
      },
      alertsDaemon: { name: 'alerts daemon', ...daemon, logFile: paths.alertsLog, readyUrl: `http://${hostPort(ports.alertsDaemon)}/health` },
      ...(scraped.length > 0
        ? {
            prometheus: {
              name: 'prometheus',
              file: prometheusBinary,
              args: [
                `--config.file=${paths.prometheusConfig}`,
                `--storage.tsdb.path=${paths.prometheusData}`,
                `--web.listen-address=${hostPort(ports.prometheus)}`,
                '--web.enable-lifecycle',
              ],
              logFile: paths.prometheusLog,
              readyUrl: `${urls.prometheus}/-/ready`,
            },
          }
        : {}),
      ...(pagerUrl && ports.pager !== undefined
        ? { pager: { name: 'pager receiver', ...edgewardCommand(['alerts', 'pager', '--listen', hostPort(ports.pager), '--log', paths.pagerLog]), logFile: paths.pagerOutput, readyUrl: `${pagerUrl}/health` } }
        : {}),
    },
  };
}

function alertsDaemonConfig(options: ObservabilityStackOptions, alertmanagerUrl: string, stateDir: string): string {
  const settings = options.alertsDaemon ?? {};
  const config = {
    cluster: options.cluster,
    controllers: options.controllers.map((controller) => ({
      id: controller.id,
      logFile: controller.logFile,
      eventsFile: controller.eventsFile,
      ...(controller.origin === undefined ? {} : { healthUrl: `${controller.origin}/health-checks/controller/raft`, metricsUrl: `${controller.origin}/metrics` }),
      ...(controller.preferredLeader ? { preferredLeader: true } : {}),
    })),
    ...(options.caBundle === undefined ? {} : { caBundle: options.caBundle }),
    alertmanager: { urls: [alertmanagerUrl], ...settings.alertmanager },
    stateDir,
    listen: hostPort(options.ports.alertsDaemon),
    ...(settings.files ? { files: settings.files } : {}),
    ...(settings.rules ? { rules: settings.rules } : {}),
  };
  // The daemon expands `$VAR` in every value, with no escape: such a path could not be written as it is.
  const expanded = JSON.stringify(config).match(/"[^"]*\$[^"]*"/);
  if (expanded) throw new Error(`layOutObservabilityStack: ${expanded[0]} contains "$", which alerts.yml would expand`);
  return `# The alerts daemon of the edgeward cluster "${options.cluster}" (docs/alerts.md), written by edgeward.\n${yamlText(config)}`;
}

/** The ports an earlier lay-out of this folder used, read back from its files: the stack keeps its URLs across starts. */
export function storedStackPorts(dataDir: string): Partial<StackPorts> {
  const paths = stackPaths(dataDir);
  const read = (file: string): unknown => {
    try {
      return existsSync(file) ? parseYaml(readFileSync(file, 'utf8')) : undefined;
    } catch {
      return undefined;
    }
  };
  const portOf = (text: unknown): number | undefined => {
    const match = typeof text === 'string' ? /:(\d+)(\/.*)?$/.exec(text) : null;
    return match ? Number(match[1]) : undefined;
  };
  const prometheus = read(paths.prometheusConfig) as
    | { scrape_configs?: { job_name?: string; static_configs?: { targets?: string[] }[] }[]; alerting?: { alertmanagers?: { static_configs?: { targets?: string[] }[] }[] } }
    | undefined;
  const target = (job: string) => prometheus?.scrape_configs?.find((config) => config.job_name === job)?.static_configs?.[0]?.targets?.[0];
  const alerts = read(paths.alertsConfig) as { listen?: string } | undefined;
  const alertmanager = read(paths.alertmanagerConfig) as { receivers?: { name?: string; webhook_configs?: { url?: string }[] }[] } | undefined;
  const ports: { -readonly [key in keyof StackPorts]?: number } = {};
  const found = {
    prometheus: portOf(target('prometheus')),
    alertmanager: portOf(prometheus?.alerting?.alertmanagers?.[0]?.static_configs?.[0]?.targets?.[0]),
    alertsDaemon: portOf(alerts?.listen),
    pager: portOf(alertmanager?.receivers?.find((receiver) => receiver.name === 'edgeward-pager')?.webhook_configs?.[0]?.url),
  };
  for (const [key, port] of Object.entries(found) as [keyof StackPorts, number | undefined][]) if (port !== undefined) ports[key] = port;
  return ports;
}

/** Starts one process of the stack, its standard output and error appended to its log file. */
export function spawnStackCommand(command: StackCommand): ChildProcess {
  const output = openSync(command.logFile, 'a', 0o640);
  try {
    return spawn(command.file, [...command.args], { stdio: ['ignore', output, output] });
  } finally {
    closeSync(output);
  }
}

/** Waits until the process answers 200 on its ready URL; fails when it exits first or the time is up. */
export async function waitForStackReady(command: StackCommand, isAlive: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  for (;;) {
    if (!isAlive()) throw new Error(`${command.name} exited before it was ready; see ${command.logFile}`);
    try {
      const response = await fetch(command.readyUrl, { signal: AbortSignal.timeout(2000) });
      await response.arrayBuffer();
      if (response.status === 200) return;
      last = `HTTP ${response.status}`;
    } catch (error) {
      last = (error as Error).message;
    }
    if (Date.now() > deadline) throw new Error(`${command.name} was not ready on ${command.readyUrl} within ${Math.round(timeoutMs / 1000)} s (${last}); see ${command.logFile}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
