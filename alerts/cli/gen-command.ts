// `./edgeward gen <what> <dir>`: writes generated configuration from its TypeScript definitions. Each generator
// is one entry of `generators`: its options, and the files it produces from them.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { dashboardsGenerator } from '../../grafana/generate/dashboards-generator.ts';
import {
  alertmanagerConfig,
  alertmanagerConfigProblems,
  defaultPagerUrl,
  defaultWarningUrl,
  type AlertmanagerConfigOptions,
  type PagerReceiver,
  type RouteTiming,
} from '../alertmanager/alertmanager-config.ts';
import { defaultRunbookBase } from '../catalogue/alert-catalogue.ts';
import { rulesFileName, rulesFileText, rulesTestFileName, rulesTestFileText } from '../rules/rules-files.ts';
import { commandLineOf, parseCommand, reportOutcome, type CommandLine, type CommandNode, type FlagValues, type LeafCommand } from '../../common/cli/command-line.ts';

export interface GenCommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

export interface GeneratedFile {
  /** Relative to the output directory; `/` separates the folders made under it. */
  readonly name: string;
  readonly text: string;
}

export interface Generator {
  readonly name: string;
  readonly usage: string;
  readonly valueOptions: readonly string[];
  /** The files, or a message saying what is wrong with the options. */
  outputs(options: ReadonlyMap<string, string>): readonly GeneratedFile[] | string;
}

export const alertmanagerFileName = 'alertmanager.yml';

const rulesGenerator: Generator = {
  name: 'rules',
  usage: `  rules <dir> [--runbook-base <url>]
      Prometheus recording and alert rules, ${rulesFileName}, and their promtool unit tests, ${rulesTestFileName}
      (check with: promtool check rules ${rulesFileName}; promtool test rules ${rulesTestFileName}).
      --runbook-base   where each alert's runbook_url points, #<alert name in lower case> added (default
                       ${defaultRunbookBase}: the status page's /runbooks), e.g. https://status.example.com/runbooks`,
  valueOptions: ['runbook-base'],
  outputs(options) {
    const runbookBase = options.get('runbook-base');
    // Each alert's #anchor is added: a fragment or a space in the base would make every runbook_url lead nowhere.
    if (runbookBase !== undefined && (runbookBase.trim() === '' || /\s|#/.test(runbookBase))) {
      return `--runbook-base "${runbookBase}" must be a URL without spaces or a #fragment (each alert's #anchor is added)`;
    }
    return [
      { name: rulesFileName, text: rulesFileText({ runbookBase }) },
      { name: rulesTestFileName, text: rulesTestFileText({ runbookBase }) },
    ];
  },
};

function parseTiming(option: string, text: string | undefined): RouteTiming | undefined | string {
  if (text === undefined) return undefined;
  const parts = text.split(',');
  if (parts.length !== 3 || parts.some((part) => part === '')) return `--${option} takes <group_wait>,<group_interval>,<repeat_interval>, e.g. 5s,1m,1h`;
  return { groupWait: parts[0]!, groupInterval: parts[1]!, repeatInterval: parts[2]! };
}

function pagerReceiver(options: ReadonlyMap<string, string>): PagerReceiver | string {
  const kind = options.get('pager') ?? 'webhook';
  const url = options.get('pager-url');
  const keyFile = options.get('pager-key-file');
  switch (kind) {
    case 'webhook':
      if (keyFile !== undefined) return '--pager-key-file is for --pager pagerduty or opsgenie';
      return { kind, url: url ?? defaultPagerUrl };
    case 'pagerduty':
    case 'opsgenie':
      if (url !== undefined) return `--pager-url is for the webhook pager; --pager ${kind} reads its key from --pager-key-file`;
      if (keyFile === undefined) return `--pager ${kind} needs --pager-key-file <file> (the ${kind === 'pagerduty' ? 'integration\'s routing key' : 'API key'}, readable by Alertmanager)`;
      return kind === 'pagerduty' ? { kind, routingKeyFile: keyFile } : { kind, apiKeyFile: keyFile };
    default:
      return `--pager must be webhook, pagerduty or opsgenie, not "${kind}"`;
  }
}

const alertmanagerGenerator: Generator = {
  name: 'alertmanager',
  usage: `  alertmanager <dir> [--pager-url <url>] [--warning-url <url>] [--pager webhook|pagerduty|opsgenie]
                     [--pager-key-file <file>] [--page-timing <wait>,<interval>,<repeat>] [--warning-timing ...]
      Alertmanager routing, ${alertmanagerFileName} (check with: amtool check-config ${alertmanagerFileName}).
      --pager-url       webhook that receives pages (default ${defaultPagerUrl})
      --warning-url     webhook that receives warnings (default ${defaultWarningUrl})
      --pager           webhook (default), or pagerduty / opsgenie with --pager-key-file: the file holding
                        the PagerDuty routing key or the Opsgenie API key
      --page-timing     group_wait,group_interval,repeat_interval of pages (default 5s,1m,1h)
      --warning-timing  the same for warnings (default 30s,5m,12h)`,
  valueOptions: ['pager-url', 'warning-url', 'pager', 'pager-key-file', 'page-timing', 'warning-timing'],
  outputs(options) {
    const pager = pagerReceiver(options);
    if (typeof pager === 'string') return pager;
    const pageTiming = parseTiming('page-timing', options.get('page-timing'));
    if (typeof pageTiming === 'string') return pageTiming;
    const warningTiming = parseTiming('warning-timing', options.get('warning-timing'));
    if (typeof warningTiming === 'string') return warningTiming;
    const config: AlertmanagerConfigOptions = { pager, warningUrl: options.get('warning-url'), pageTiming, warningTiming };
    const problems = alertmanagerConfigProblems(config);
    if (problems.length > 0) return problems.join('; ');
    return [{ name: alertmanagerFileName, text: alertmanagerConfig(config) }];
  },
};

export const generators: readonly Generator[] = [rulesGenerator, alertmanagerGenerator, dashboardsGenerator];

export const genUsage = `Usage: ./edgeward gen <what> <dir> [options]

Writes generated configuration into <dir> (created if missing), replacing files of the same name.

${generators.map((generator) => generator.usage).join('\n')}
`;

/** Each generator's options, as the values its `outputs` reads. */
function optionsOf(generator: Generator, flags: FlagValues): Map<string, string> {
  const options = new Map<string, string>();
  for (const name of generator.valueOptions) {
    const value = flags.text(name);
    if (value !== undefined) options.set(name, value);
  }
  return options;
}

function leafOf(generator: Generator): LeafCommand {
  return {
    usage: `Usage: ./edgeward gen ${generator.usage.trimStart()}\n`,
    flags: generator.valueOptions.map((name) => ({ name, kind: 'string' as const })),
    arguments: ['dir'],
    min: 1,
    max: 1,
    example: ['out'],
    // The options' values are checked with the command line: a wrong one is a usage error before anything is written.
    check: ({ flags }) => {
      const outputs = generator.outputs(optionsOf(generator, flags));
      return typeof outputs === 'string' ? outputs : undefined;
    },
  };
}

const tree: CommandNode = { usage: genUsage, subcommands: Object.fromEntries(generators.map((generator) => [generator.name, leafOf(generator)])) };

/** `./edgeward gen ...`: its generators, and the parse the command runs first. */
export const genCommandLine: CommandLine = commandLineOf('gen', tree);

export async function runGenCommand(args: string[], io: GenCommandIo): Promise<number> {
  const outcome = parseCommand('gen', tree, args);
  if (outcome.kind !== 'run') return reportOutcome(outcome, io);
  const generator = generators.find((candidate) => candidate.name === outcome.value.path[0])!;
  const outputs = generator.outputs(optionsOf(generator, outcome.value.flags)) as readonly GeneratedFile[];
  const dir = outcome.value.positional[0]!;
  try {
    mkdirSync(dir, { recursive: true });
    for (const file of outputs) {
      const path = join(dir, ...file.name.split('/'));
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, file.text);
      io.stdout(`wrote ${path}\n`);
    }
  } catch (error) {
    io.stderr(`edgeward gen: ${(error as Error).message}\n`);
    return 1;
  }
  return 0;
}
