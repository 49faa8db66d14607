// The edge model on disk (`edge.db`): loaded at start (missing → empty model, info; unreadable or corrupt → warning,
// empty model), saved every `edge.dbSaveIntervalSeconds` when it changed and once more at stop, write-then-rename
// so a crash never leaves half a file.

import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Logger } from '../../common/log/logger.ts';
import type { Clock } from '../../common/time/clock.ts';
import { decodeEdgeSnapshot, EdgeModelHolder, encodeEdgeSnapshot, type EdgeSnapshot } from './edge-model-snapshot.ts';

export async function loadEdgeSnapshot(path: string, logger: Logger): Promise<EdgeSnapshot | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') logger.info('no edge db yet: starting with an empty edge model', { path });
    else logger.warn('cannot read the edge db: starting with an empty edge model', { path, error: (error as Error).message });
    return undefined;
  }
  try {
    const snapshot = decodeEdgeSnapshot(bytes);
    logger.info('edge db loaded', { path, index: snapshot.index, services: snapshot.model.services.length });
    return snapshot;
  } catch (error) {
    logger.warn('edge db is corrupt: starting with an empty edge model', { path, error: (error as Error).message });
    return undefined;
  }
}

export class EdgeDb {
  private timer: NodeJS.Timeout | undefined;
  private saving: Promise<void> = Promise.resolve();

  constructor(
    private readonly path: string,
    private readonly intervalMs: number,
    readonly holder: EdgeModelHolder,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.saveIfChanged(), this.intervalMs);
    this.timer.unref();
  }

  /** Saves now if the model changed; saves never overlap. */
  saveIfChanged(): Promise<void> {
    this.saving = this.saving.then(async () => {
      if (!this.holder.dirty) return;
      const snapshot = this.holder.current;
      try {
        await mkdir(dirname(this.path), { recursive: true });
        const temporary = `${this.path}.tmp-${process.pid}`;
        await writeFile(temporary, encodeEdgeSnapshot(snapshot, this.clock.now()), { mode: 0o600 });
        await rename(temporary, this.path);
        this.holder.markSaved(snapshot.index);
        this.logger.info('edge db saved', { path: this.path, index: snapshot.index });
      } catch (error) {
        this.logger.error('cannot save the edge db', { path: this.path, error: (error as Error).message });
      }
    });
    return this.saving;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.saveIfChanged();
  }
}
