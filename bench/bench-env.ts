// What every benchmark reads from its environment and prints while it runs.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** A whole number from 1 to `max` read from the environment (`fallback` when unset); `unit` names it in the error. */
export function positiveInteger(name: string, fallback: number, max = 3600, unit = 'seconds'): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > max) throw new Error(`${name} must be a whole number of ${unit} from 1 to ${max}, not "${raw}"`);
  return value;
}

export const progress = (text: string) => process.stderr.write(`bench: ${text}\n`);

export function wrkVersion(): string {
  const result = spawnSync('wrk', ['-v'], { encoding: 'utf8', timeout: 5_000 });
  if ((result.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') throw new Error('wrk is not installed: run bench/run.sh, or apt-get install wrk');
  return /wrk \S+/.exec(`${result.stdout}${result.stderr}`)?.[0] ?? 'wrk (unknown version)';
}

/** RESULTS.md as it stands, or undefined before the first run wrote it: each benchmark keeps the others' sections. */
export function readPreviousResults(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
