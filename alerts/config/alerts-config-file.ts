// The one place the alerts config touches the disk: read the file, then hand the text to the pure parser.

import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseAlertsConfig } from './alerts-config.ts';
import type { AlertsConfig, ConfigProblem } from './alerts-config.ts';

/** Reads and parses an alerts config; an unreadable file is reported as a problem, not thrown. */
export async function readAlertsConfig(
  file: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<{ config?: AlertsConfig; problems: ConfigProblem[] }> {
  const absolute = resolve(file);
  let text: string;
  try {
    text = await readFile(absolute, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    return { problems: [{ severity: 'error', path: '', rule: 'read', message: `cannot read the config file: ${reason}` }] };
  }
  return parseAlertsConfig(text, { file: absolute, env });
}
