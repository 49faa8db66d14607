// The one place the alerts config touches the disk: read the file, then hand the text to the pure parser.

import { readConfigText } from '../../common/config-io/read-config-text.ts';
import { parseAlertsConfig } from './alerts-config.ts';
import type { AlertsConfig, ConfigProblem } from './alerts-config.ts';

/** Reads and parses an alerts config; an unreadable file is reported as a problem, not thrown. */
export async function readAlertsConfig(
  file: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<{ config?: AlertsConfig; problems: ConfigProblem[] }> {
  const read = await readConfigText(file);
  if ('problem' in read) return { problems: [read.problem] };
  return parseAlertsConfig(read.text, { file: read.file, env });
}
