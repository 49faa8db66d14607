// The files `./edgeward gen dashboards <dir>` writes: one JSON file per dashboard under dashboards/, and Grafana's
// provisioning files for the datasource and the dashboards. Pure text first (generatedFiles), then the writing, so
// that the committed copy in grafana/generated can be compared with what the generator gives today.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { defaultRunbookBase } from '../../alerts/catalogue/alert-catalogue.ts';
import { dashboardFileName, edgewardDashboards } from '../dashboards/edgeward-dashboards.ts';
import {
  dashboardProvisioning,
  dashboardProviderFileName,
  datasourceFileName,
  datasourceProvisioning,
  defaultDashboardsPath,
  defaultDatasourceUrl,
} from './provisioning-files.ts';
import { stableJson } from './stable-json.ts';

export interface GenerateOptions {
  /** The Prometheus URL the provisioned datasource points at. */
  readonly datasourceUrl?: string;
  /** docs/runbooks.md where the operator's browser can open it; the alerts' runbook_url uses the same base. */
  readonly runbookBase?: string;
  /** The folder on the Grafana host the dashboard provider reads the JSON files from. */
  readonly dashboardsPath?: string;
}

export interface GeneratedFile {
  /** Relative to the output folder, `/`-separated. */
  readonly path: string;
  readonly text: string;
}

export const dashboardsFolder = 'dashboards';

/** Every problem with the options, one message each; empty when they are fine. */
export function generateOptionProblems(options: GenerateOptions): string[] {
  const problems: string[] = [];
  if (options.datasourceUrl !== undefined && !isHttpUrl(options.datasourceUrl)) {
    problems.push(`--datasource-url "${options.datasourceUrl}" is not an http or https URL (e.g. http://127.0.0.1:9090)`);
  }
  if (options.runbookBase !== undefined && (options.runbookBase.trim() === '' || /\s|#/.test(options.runbookBase))) {
    problems.push(`--runbook-base "${options.runbookBase}" must be a URL or path without spaces or a #fragment (each alert's #anchor is added)`);
  }
  if (options.dashboardsPath !== undefined && !isAbsolute(options.dashboardsPath)) {
    problems.push(`--dashboards-path "${options.dashboardsPath}" must be an absolute path on the Grafana host`);
  }
  return problems;
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.host !== '';
  } catch {
    return false;
  }
}

export function generatedFiles(options: GenerateOptions = {}): GeneratedFile[] {
  const problems = generateOptionProblems(options);
  if (problems.length > 0) throw new Error(problems.join('; '));
  const dashboards = edgewardDashboards({ runbookBase: options.runbookBase ?? defaultRunbookBase });
  return [
    ...dashboards.map((dashboard) => ({ path: `${dashboardsFolder}/${dashboardFileName(dashboard)}`, text: stableJson(dashboard) })),
    { path: datasourceFileName, text: datasourceProvisioning(options.datasourceUrl ?? defaultDatasourceUrl) },
    { path: dashboardProviderFileName, text: dashboardProvisioning(options.dashboardsPath ?? defaultDashboardsPath) },
  ];
}

/** Writes every file under `dir` (created as needed, files of the same name replaced); returns the paths written. */
export function writeDashboards(dir: string, options: GenerateOptions = {}): string[] {
  const written: string[] = [];
  for (const file of generatedFiles(options)) {
    const path = join(dir, ...file.path.split('/'));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, file.text);
    written.push(path);
  }
  return written;
}
