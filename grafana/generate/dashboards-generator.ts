// `./edgeward gen dashboards <dir>`: the Grafana dashboards and provisioning files, as one entry of the `gen`
// command's table of generators (alerts/cli/generator.ts parses the arguments and writes the files; the table is
// server/cli/gen-command.ts).
import type { Generator } from '../../alerts/cli/generator.ts';
import { defaultRunbookBase } from '../../alerts/catalogue/alert-catalogue.ts';
import { defaultDashboardsPath, defaultDatasourceUrl } from './provisioning-files.ts';
import { dashboardsFolder, generatedFiles, generateOptionProblems, type GenerateOptions } from './write-dashboards.ts';

export const dashboardsGenerator: Generator = {
  name: 'dashboards',
  usage: `  dashboards <dir> [--datasource-url <url>] [--runbook-base <url>] [--dashboards-path <path>]
      Grafana dashboards, one JSON file each under <dir>/${dashboardsFolder}/, and Grafana provisioning files under
      <dir>/provisioning/ (a Prometheus datasource, and a provider loading the dashboards into a folder "edgeward").
      --datasource-url   the Prometheus the datasource points at (default ${defaultDatasourceUrl})
      --runbook-base     where alert panels' runbook links point: the runbooks as your browser reaches them
                         (default ${defaultRunbookBase}: the status page's /runbooks), e.g. https://status.example.com/runbooks
      --dashboards-path  the folder on the Grafana host the provider loads the JSON from, where you copy
                         <dir>/${dashboardsFolder}/ (default ${defaultDashboardsPath})`,
  valueOptions: ['datasource-url', 'runbook-base', 'dashboards-path'],
  outputs(options) {
    const chosen: GenerateOptions = {
      datasourceUrl: options.get('datasource-url'),
      runbookBase: options.get('runbook-base'),
      dashboardsPath: options.get('dashboards-path'),
    };
    const problems = generateOptionProblems(chosen);
    if (problems.length > 0) return problems.join('; ');
    return generatedFiles(chosen).map((file) => ({ name: file.path, text: file.text }));
  },
};
