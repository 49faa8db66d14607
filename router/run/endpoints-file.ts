// Reads the endpoints file at start and rewrites it (mode 0600, write-then-rename) when the cluster's membership
// changes. Never watched: the file is read only once, at start.

import { chmod, readFile, rename, writeFile } from 'node:fs/promises';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Logger } from '../../common/log/logger.ts';
import type { ControllerEndpoint } from '../../common/control-channel/control-messages.ts';
import { contentFromMembers, formatEndpointsFile, parseEndpointsFile, sameEndpoints, type EndpointsFileContent } from './endpoints-file-format.ts';

/** The file's endpoints, or undefined when it is missing, unreadable or names none (the config's are used then). */
export async function readEndpointsFile(path: string, logger: Logger): Promise<EndpointsFileContent | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') logger.warn('cannot read the endpoints file; using the config\'s controller endpoints', { path, error: (error as Error).message });
    return undefined;
  }
  const parsed = parseEndpointsFile(text);
  for (const problem of parsed.problems) logger.warn('endpoints file problem', { path, problem });
  if (parsed.content.endpoints.length === 0) return undefined;
  return parsed.content;
}

/** Writes the file when its content would change; true when it was written. */
export async function writeEndpointsFile(path: string, content: EndpointsFileContent): Promise<boolean> {
  try {
    const current = parseEndpointsFile(await readFile(path, 'utf8'));
    if (current.problems.length === 0 && sameEndpoints(current.content, content)) return false;
  } catch {
    // missing or unreadable: write it
  }
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.tmp-${process.pid}`;
  await writeFile(temporary, formatEndpointsFile(content), { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, path);
  return true;
}

/**
 * Keeps the file in step with the cluster members each `ctrl.welcome` and `ctrl.members` announces: one write at a
 * time, in the order announced, each only when the content changes; a failed write is logged, never thrown.
 */
export class EndpointsFileKeeper {
  private writes: Promise<void> = Promise.resolve();

  constructor(
    private readonly path: string,
    private readonly logger: Logger,
  ) {}

  update(members: readonly ControllerEndpoint[]): void {
    const content = contentFromMembers(members);
    if (content.endpoints.length === 0) return;
    this.writes = this.writes
      .then(async () => {
        if (await writeEndpointsFile(this.path, content)) this.logger.info('endpoints file updated', { path: this.path, endpoints: content.endpoints });
      })
      .catch((error: Error) => this.logger.error('cannot write the endpoints file', { path: this.path, error: error.message }));
  }

  /** Resolves once every write asked for so far is done. */
  settled(): Promise<void> {
    return this.writes;
  }
}
