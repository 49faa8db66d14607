// Writes prometheus.yml for one edgeward cluster: its controllers (HTTPS, verified with the cluster's CA), its
// alerts daemons (plain HTTP), the Alertmanagers to notify and the generated rule files. Every target carries the
// target labels the rules aggregate by (scrape-names.ts), so a rule never depends on host names or ports.
import { goYamlText } from '../yaml/go-yaml-text.ts';
import { scrapeNames } from './scrape-names.ts';

export interface ControllerTarget {
  /** The controller's id: the `controller` label of its series and alerts. */
  readonly id: string;
  /** `host:port` of the web bind point that serves `/metrics`. */
  readonly target: string;
}

export interface PrometheusConfigOptions {
  readonly cluster: string;
  readonly controllers: readonly ControllerTarget[];
  /** The CA bundle that verifies the controllers' HTTPS certificates (the cluster's `ca-bundle.pem`). */
  readonly caFile: string;
  /** `host:port` of each alerts daemon's plain-HTTP `/metrics`. */
  readonly alertsDaemonTargets: readonly string[];
  /** Base URLs of the Alertmanagers (`http://127.0.0.1:9093`; a path is kept as the path prefix). */
  readonly alertmanagerUrls: readonly string[];
  readonly ruleFiles: readonly string[];
  /** Prometheus durations (`15s`, `1m`). */
  readonly scrapeInterval: string;
  readonly evaluationInterval: string;
  /** Also scrape the Alertmanagers' own `/metrics` (job `alertmanager`). */
  readonly scrapeAlertmanagers?: boolean;
  /** `host:port` of this Prometheus, to scrape itself (job `prometheus`). */
  readonly prometheusTarget?: string;
  /** More scrape configs, appended as they are; each needs a `job_name` of its own. */
  readonly extraScrapeConfigs?: readonly Readonly<Record<string, unknown>>[];
}

const durationPattern = /^(\d+y)?(\d+w)?(\d+d)?(\d+h)?(\d+m)?(\d+s)?(\d+ms)?$/;
const hostPortPattern = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})$/;
const labelValuePattern = /^[^\n\r]+$/;

function isDuration(text: string): boolean {
  return text !== '' && durationPattern.test(text) && !/^0+(ms|[smhdwy])?$/.test(text);
}

function isHostPort(text: string): boolean {
  const match = hostPortPattern.exec(text);
  return match !== null && Number(match[2]) >= 1 && Number(match[2]) <= 65535;
}

interface AlertmanagerEndpoint {
  readonly scheme: 'http' | 'https';
  readonly target: string;
  readonly pathPrefix: string;
}

function alertmanagerEndpoint(url: string): AlertmanagerEndpoint | string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `alertmanagerUrls: "${url}" is not a URL`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `alertmanagerUrls: "${url}" is not http or https`;
  if (parsed.username || parsed.password || parsed.search || parsed.hash) return `alertmanagerUrls: "${url}" must be a plain base URL (no credentials, query or fragment)`;
  const scheme = parsed.protocol === 'https:' ? 'https' : 'http';
  const port = parsed.port || (scheme === 'https' ? '443' : '80');
  return { scheme, target: `${parsed.hostname}:${port}`, pathPrefix: parsed.pathname === '/' ? '' : parsed.pathname.replace(/\/$/, '') };
}

/** Every problem with the options, each naming the option; empty when they can be written. */
export function prometheusConfigProblems(options: PrometheusConfigOptions): string[] {
  const problems: string[] = [];
  if (!labelValuePattern.test(options.cluster)) problems.push('cluster: must be a non-empty single line');
  if (options.controllers.length === 0) problems.push('controllers: at least one controller is needed');
  const ids = new Set<string>();
  const targets = new Set<string>();
  for (const [index, controller] of options.controllers.entries()) {
    if (!labelValuePattern.test(controller.id)) problems.push(`controllers[${index}].id: must be a non-empty single line`);
    if (ids.has(controller.id)) problems.push(`controllers[${index}].id: "${controller.id}" is listed twice`);
    ids.add(controller.id);
    if (!isHostPort(controller.target)) problems.push(`controllers[${index}].target: "${controller.target}" is not host:port`);
    if (targets.has(controller.target)) problems.push(`controllers[${index}].target: "${controller.target}" is listed twice`);
    targets.add(controller.target);
  }
  if (options.caFile.trim() === '') problems.push('caFile: the controllers\' CA bundle is needed (their /metrics is HTTPS)');
  for (const [index, target] of options.alertsDaemonTargets.entries()) {
    if (!isHostPort(target)) problems.push(`alertsDaemonTargets[${index}]: "${target}" is not host:port`);
  }
  for (const url of options.alertmanagerUrls) {
    const endpoint = alertmanagerEndpoint(url);
    if (typeof endpoint === 'string') problems.push(endpoint);
  }
  if (options.scrapeAlertmanagers && options.alertmanagerUrls.length === 0) problems.push('scrapeAlertmanagers: no alertmanagerUrls to scrape');
  for (const [index, file] of options.ruleFiles.entries()) {
    if (file.trim() === '') problems.push(`ruleFiles[${index}]: empty path`);
  }
  if (!isDuration(options.scrapeInterval)) problems.push(`scrapeInterval: "${options.scrapeInterval}" is not a Prometheus duration such as 15s`);
  if (!isDuration(options.evaluationInterval)) problems.push(`evaluationInterval: "${options.evaluationInterval}" is not a Prometheus duration such as 15s`);
  if (options.prometheusTarget !== undefined && !isHostPort(options.prometheusTarget)) problems.push(`prometheusTarget: "${options.prometheusTarget}" is not host:port`);
  const jobs = new Set<string>(ownJobNames(options));
  for (const [index, extra] of (options.extraScrapeConfigs ?? []).entries()) {
    const name = extra['job_name'];
    if (typeof name !== 'string' || name === '') problems.push(`extraScrapeConfigs[${index}].job_name: missing`);
    else if (jobs.has(name)) problems.push(`extraScrapeConfigs[${index}].job_name: "${name}" is already a job`);
    else jobs.add(name);
  }
  return problems;
}

function ownJobNames(options: PrometheusConfigOptions): string[] {
  const jobs: string[] = [scrapeNames.jobs.controller];
  if (options.alertsDaemonTargets.length > 0) jobs.push(scrapeNames.jobs.alertsDaemon);
  if (options.scrapeAlertmanagers) {
    const endpoints = options.alertmanagerUrls.map(alertmanagerEndpoint).filter((endpoint) => typeof endpoint !== 'string');
    jobs.push(...alertmanagerJobs(endpoints).map((job) => job.jobName));
  }
  if (options.prometheusTarget !== undefined) jobs.push(scrapeNames.jobs.prometheus);
  return jobs;
}

/** prometheus.yml text; throws with every problem when the options are not valid. */
export function prometheusConfig(options: PrometheusConfigOptions): string {
  const problems = prometheusConfigProblems(options);
  if (problems.length > 0) throw new Error(`invalid Prometheus configuration options:\n  ${problems.join('\n  ')}`);
  const { labels, jobs } = scrapeNames;
  const clusterLabel = { [labels.cluster]: options.cluster };
  const endpoints = options.alertmanagerUrls.map((url) => alertmanagerEndpoint(url) as AlertmanagerEndpoint);

  const scrapeConfigs: Record<string, unknown>[] = [
    {
      job_name: jobs.controller,
      scheme: 'https',
      metrics_path: '/metrics',
      tls_config: { ca_file: options.caFile },
      static_configs: options.controllers.map((controller) => ({
        targets: [controller.target],
        labels: { ...clusterLabel, [labels.controller]: controller.id },
      })),
    },
  ];
  if (options.alertsDaemonTargets.length > 0) {
    scrapeConfigs.push({
      job_name: jobs.alertsDaemon,
      scheme: 'http',
      metrics_path: '/metrics',
      static_configs: [{ targets: [...options.alertsDaemonTargets], labels: clusterLabel }],
    });
  }
  if (options.scrapeAlertmanagers) {
    scrapeConfigs.push(
      ...alertmanagerJobs(endpoints).map(({ jobName, group }) => ({
        job_name: jobName,
        scheme: group.scheme,
        metrics_path: `${group.pathPrefix}/metrics`,
        static_configs: [{ targets: group.targets, labels: clusterLabel }],
      })),
    );
  }
  if (options.prometheusTarget !== undefined) {
    scrapeConfigs.push({ job_name: jobs.prometheus, static_configs: [{ targets: [options.prometheusTarget], labels: clusterLabel }] });
  }
  scrapeConfigs.push(...(options.extraScrapeConfigs ?? []).map((extra) => ({ ...extra })));

  const config: Record<string, unknown> = {
    global: { scrape_interval: options.scrapeInterval, evaluation_interval: options.evaluationInterval },
  };
  if (endpoints.length > 0) {
    config['alerting'] = {
      alertmanagers: groupBySchemeAndPrefix(endpoints).map((group) => ({
        scheme: group.scheme,
        ...(group.pathPrefix ? { path_prefix: group.pathPrefix } : {}),
        api_version: 'v2',
        static_configs: [{ targets: group.targets }],
      })),
    };
  }
  if (options.ruleFiles.length > 0) config['rule_files'] = [...options.ruleFiles];
  config['scrape_configs'] = scrapeConfigs;
  return goYamlText(config, [`Prometheus configuration for the edgeward cluster "${options.cluster}", written by edgeward.`]);
}

interface EndpointGroup {
  readonly scheme: 'http' | 'https';
  readonly pathPrefix: string;
  readonly targets: string[];
}

/** Alertmanagers that differ in scheme or path prefix need a job each: `alertmanager`, or `alertmanager-1`, `-2`... */
function alertmanagerJobs(endpoints: readonly AlertmanagerEndpoint[]): { jobName: string; group: EndpointGroup }[] {
  const groups = groupBySchemeAndPrefix(endpoints);
  return groups.map((group, index) => ({ jobName: groups.length === 1 ? scrapeNames.jobs.alertmanager : `${scrapeNames.jobs.alertmanager}-${index + 1}`, group }));
}

/** One Prometheus entry per scheme and path prefix: those are per entry, the targets are a list. */
function groupBySchemeAndPrefix(endpoints: readonly AlertmanagerEndpoint[]): EndpointGroup[] {
  const groups: EndpointGroup[] = [];
  for (const endpoint of endpoints) {
    let group = groups.find((candidate) => candidate.scheme === endpoint.scheme && candidate.pathPrefix === endpoint.pathPrefix);
    if (!group) {
      group = { scheme: endpoint.scheme, pathPrefix: endpoint.pathPrefix, targets: [] };
      groups.push(group);
    }
    if (!group.targets.includes(endpoint.target)) group.targets.push(endpoint.target);
  }
  return groups;
}
