// The one place the controller config touches the disk: read the file, then hand the text to the pure parser.

import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseControllerConfig } from './controller-config.ts';
import type { ConfigProblem, ControllerConfig } from './controller-config.ts';

/** Reads and parses a controller config; an unreadable file is reported as a problem, not thrown. */
export async function readControllerConfig(
  file: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<{ config?: ControllerConfig; problems: ConfigProblem[] }> {
  const absolute = resolve(file);
  let text: string;
  try {
    text = await readFile(absolute, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    return { problems: [{ severity: 'error', path: '', rule: 'read', message: `cannot read the config file: ${reason}` }] };
  }
  return parseControllerConfig(text, { file: absolute, env });
}
