// Reading a config file's text: the one step every config (controller, router, alerts daemon) takes on the disk
// before its pure parser. An unreadable file becomes a problem in the usual shape, never a thrown error.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ConfigProblem } from '../config/problem.ts';

export type ConfigText = { readonly file: string; readonly text: string } | { readonly file: string; readonly problem: ConfigProblem };

/** The file's absolute path and its text, or the problem that kept it from being read. */
export async function readConfigText(file: string): Promise<ConfigText> {
  const absolute = resolve(file);
  try {
    return { file: absolute, text: await readFile(absolute, 'utf8') };
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    return { file: absolute, problem: { severity: 'error', path: '', rule: 'read', message: `cannot read the config file: ${reason}` } };
  }
}
