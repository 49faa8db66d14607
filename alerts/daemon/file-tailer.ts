// Every followed file, watched with chokidar through its directory: an event on a followed path pokes that path's
// follower, which then reads what is new (or follows a rotation or truncation). Every file is also poked every `recheckInterval`, so a missed event
// (a network file system, a watcher that lost a renamed file) delays a line, never loses it.

import chokidar from 'chokidar';
import type { FSWatcher } from 'chokidar';
import { basename, dirname, resolve } from 'node:path';
import type { Logger } from '../../common/log/logger.ts';
import type { ChunkConsumer, SavedPosition } from './file-follower.ts';
import { FileFollower } from './file-follower.ts';

export interface FollowedFile {
  readonly path: string;
  readonly consumer: ChunkConsumer;
}

export interface FileTailerOptions {
  readonly initialPosition: 'end' | 'start';
  readonly recheckInterval: number;
  readonly chunkBytes: number;
  readonly logger: Logger;
}

export class FileTailer {
  private readonly followers = new Map<string, FileFollower>();
  private watcher: FSWatcher | undefined;
  private recheck: NodeJS.Timeout | undefined;

  constructor(
    files: readonly FollowedFile[],
    saved: Readonly<Record<string, SavedPosition>>,
    private readonly options: FileTailerOptions,
  ) {
    for (const file of files) {
      const path = resolve(file.path);
      this.followers.set(path, new FileFollower(path, file.consumer, { initialPosition: options.initialPosition, chunkBytes: options.chunkBytes, logger: options.logger }, saved[path]));
    }
  }

  async start(): Promise<void> {
    const paths = [...this.followers.keys()];
    if (paths.length === 0) return;
    // The directories, not the files: a watch on a file is lost when it is renamed, a directory sees every rename,
    // new file and write in it. Only the followed names get through.
    const dirs = [...new Set(paths.map((path) => dirname(path)))];
    this.watcher = chokidar.watch(dirs, { ignoreInitial: true, persistent: true, depth: 0, ignored: (path) => !dirs.includes(path) && !this.followers.has(resolve(path)) });
    this.watcher.on('all', (_event, path) => void this.followers.get(resolve(path))?.poke());
    // chokidar throttles `change` events of one path, and a rename right after a write can fall in the pause; the
    // raw events come through every time, so they poke too (a poke with nothing new costs one stat).
    this.watcher.on('raw', (_event, path) => {
      const name = basename(String(path));
      for (const [followed, follower] of this.followers) if (basename(followed) === name) void follower.poke();
    });
    this.watcher.on('error', (error) => this.options.logger.warn('file watcher error; the periodic re-check goes on', { error: error instanceof Error ? error.message : String(error) }));
    await new Promise<void>((ready) => this.watcher!.once('ready', () => ready()));
    this.recheck = setInterval(() => void this.pokeAll(), this.options.recheckInterval);
    // Awaited: every file is positioned (its end, or the saved offset) before start() resolves, so a line written
    // after the daemon says it started is news, never taken for history by a first look that came later.
    await this.pokeAll();
  }

  /** Reads every file up to its current end. */
  async pokeAll(): Promise<void> {
    await Promise.all([...this.followers.values()].map((follower) => follower.poke()));
  }

  positions(): Record<string, SavedPosition> {
    const out: Record<string, SavedPosition> = {};
    for (const [path, follower] of this.followers) {
      const position = follower.position();
      if (position) out[path] = position;
    }
    return out;
  }

  async stop(): Promise<void> {
    clearInterval(this.recheck);
    await this.watcher?.close();
    await Promise.all([...this.followers.values()].map((follower) => follower.stop()));
  }
}
