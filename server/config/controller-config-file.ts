// The one place the controller config touches the disk: read the file, then hand the text to the pure parser.

import { readConfigText } from '../../common/config-io/read-config-text.ts';
import { parseControllerConfig } from './controller-config.ts';
import type { ConfigProblem, ControllerConfig } from './controller-config.ts';

/** Reads and parses a controller config; an unreadable file is reported as a problem, not thrown. */
export async function readControllerConfig(
  file: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<{ config?: ControllerConfig; problems: ConfigProblem[] }> {
  const read = await readConfigText(file);
  if ('problem' in read) return { problems: [read.problem] };
  return parseControllerConfig(read.text, { file: read.file, env });
}
