// The one place the status page's config touches the disk: read the file, then hand the text to the pure parser.

import { readConfigText } from '../../common/config-io/read-config-text.ts';
import { parseDashboardConfig } from './dashboard-config.ts';
import type { ConfigProblem, DashboardConfig } from './dashboard-config.ts';

/** Reads and parses a status page config; an unreadable file is reported as a problem, not thrown. */
export async function readDashboardConfig(
  file: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<{ config?: DashboardConfig; problems: ConfigProblem[] }> {
  const read = await readConfigText(file);
  if ('problem' in read) return { problems: [read.problem] };
  return parseDashboardConfig(read.text, { file: read.file, env });
}
