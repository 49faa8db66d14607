// The alerting entries of `./edgeward gen`: `rules` (the Prometheus rules and their promtool tests) and
// `alertmanager` (the routing). The command itself, with the dashboards entry beside these, is put together in
// server/cli/gen-command.ts, so that alerts/ never imports grafana/ (grafana/ reads the alert catalogue and the
// monitoring mixin from here).
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
import type { Generator } from './generator.ts';

export type { GenCommandIo, GeneratedFile, Generator } from './generator.ts';

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

export const alertGenerators: readonly Generator[] = [rulesGenerator, alertmanagerGenerator];
