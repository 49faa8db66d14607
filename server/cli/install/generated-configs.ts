// The Prometheus and Alertmanager files a release ships (share/prometheus, share/alertmanager) and the Grafana
// dashboards (share/grafana), written by the same generators as `./edgeward gen rules|alertmanager|dashboards`, plus
// a prometheus.yml for one controller that installs as /etc/edgeward/prometheus/prometheus.yml.
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runGenCommand } from '../gen-command.ts';
import { prometheusConfig } from '../../../alerts/prometheus/prometheus-config.ts';
import { releasePaths } from './release-tree.ts';

/** Where the installed files sit on the host: Prometheus reads the rules from here. */
export const installedRulesDir = '/etc/edgeward/prometheus/rules';

export function examplePrometheusConfig(): string {
  const header = [
    '# Prometheus for an edgeward installation: scrapes ctrl1 (add every controller of the cluster), the alerts daemon,',
    '# Alertmanager and itself, and evaluates the generated rules. Installed by ./edgeward install as',
    '# /etc/edgeward/prometheus/prometheus.yml, and as /etc/prometheus/prometheus.yml only when that file did not exist',
    '# (docs/install.md says how to merge it into an existing one). Debian\'s prometheus user must be able to read',
    '# /etc/edgeward/pki/ca-bundle.pem.',
    '',
  ].join('\n');
  return (
    header +
    prometheusConfig({
      cluster: 'edgeward',
      controllers: [{ id: 'ctrl1', target: 'ctrl1.example.com:1280' }],
      caFile: '/etc/edgeward/pki/ca-bundle.pem',
      alertsDaemonTargets: ['127.0.0.1:9105'],
      alertmanagerUrls: ['http://127.0.0.1:9093'],
      ruleFiles: [`${installedRulesDir}/edgeward-rules.yml`],
      scrapeInterval: '15s',
      evaluationInterval: '15s',
      scrapeAlertmanagers: true,
      prometheusTarget: '127.0.0.1:9090',
    })
  );
}

export async function writeGeneratedConfigs(tree: string): Promise<void> {
  const output: string[] = [];
  const io = { stdout: (text: string) => void output.push(text), stderr: (text: string) => void output.push(text) };
  const generate = async (args: string[]) => {
    const code = await runGenCommand(args, io);
    if (code !== 0) throw new Error(`./edgeward gen ${args.join(' ')} failed:\n${output.join('')}`);
  };
  await generate(['rules', join(tree, releasePaths.prometheus, 'rules')]);
  await generate(['alertmanager', join(tree, releasePaths.alertmanager)]);
  await generate(['dashboards', join(tree, releasePaths.grafana)]);
  writeFileSync(join(tree, releasePaths.prometheus, 'prometheus.yml'), examplePrometheusConfig());
}

/** The generated files of a release tree, relative to it. */
export function generatedFiles(tree: string, dir: string): string[] {
  return readdirSync(join(tree, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(tree.length + 1))
    .sort();
}
