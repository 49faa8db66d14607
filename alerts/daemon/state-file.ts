// The daemon's state on disk, `<stateDir>/alerts-state.json`: where each followed file was read up to (device,
// inode, offset), the evaluator's state and the delivery queue, in one JSON document so that they always agree. It
// is written whole to a temporary file, synced, and renamed over the old one, so a crash leaves the old or the new
// state, never half of one. A file that cannot be read is moved aside and the daemon starts afresh, saying so.

import { mkdir, open, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../common/log/logger.ts';
import type { DeliveryState } from '../core/delivery/delivery-queue.ts';
import { emptyEvaluatorState } from '../core/evaluator/evaluator-state.ts';
import type { EvaluatorState } from '../core/evaluator/evaluator-state.ts';
import type { SavedPosition } from './file-follower.ts';

export interface DaemonState {
  readonly version: 1;
  readonly savedAt: string;
  /** Followed path → position. */
  readonly files: Readonly<Record<string, SavedPosition>>;
  readonly evaluator: EvaluatorState;
  readonly delivery: DeliveryState;
}

export const stateFileName = 'alerts-state.json';

export class StateFile {
  readonly path: string;

  constructor(
    private readonly dir: string,
    private readonly logger: Logger,
  ) {
    this.path = join(dir, stateFileName);
  }

  async load(): Promise<DaemonState | undefined> {
    await mkdir(this.dir, { recursive: true, mode: 0o750 });
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    const problem = stateProblem(text);
    if (typeof problem === 'string') {
      const aside = `${this.path}.unreadable-${Date.now()}`;
      await rename(this.path, aside);
      this.logger.error('the state file cannot be used; it was moved aside and the daemon starts afresh', { path: this.path, movedTo: aside, problem });
      return undefined;
    }
    return { ...problem, evaluator: { ...emptyEvaluatorState(), ...problem.evaluator } };
  }

  async save(state: DaemonState): Promise<void> {
    const temporary = `${this.path}.tmp-${process.pid}`;
    const handle = await open(temporary, 'w', 0o640);
    try {
      await handle.writeFile(JSON.stringify(state));
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, this.path);
    // The rename itself is durable only once the directory is synced.
    const dir = await open(this.dir, 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  }
}

/** The parsed state, or why it cannot be used. */
function stateProblem(text: string): DaemonState | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return `not JSON: ${(error as Error).message}`;
  }
  if (!isObject(parsed) || parsed.version !== 1) return 'not a version 1 state file';
  if (!isObject(parsed.files) || !Object.values(parsed.files).every(isPosition)) return 'files: not a map of positions';
  if (!isObject(parsed.evaluator) || parsed.evaluator.version !== 1 || !isObject(parsed.evaluator.firing)) return 'evaluator: not a version 1 evaluator state';
  if (!isObject(parsed.delivery) || parsed.delivery.version !== 1 || !Array.isArray(parsed.delivery.alerts) || !isObject(parsed.delivery.targets)) return 'delivery: not a version 1 delivery queue';
  return parsed as unknown as DaemonState;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPosition(value: unknown): boolean {
  return isObject(value) && typeof value.dev === 'string' && typeof value.ino === 'string' && typeof value.offset === 'number' && value.offset >= 0;
}
