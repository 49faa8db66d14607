// profile.cpu.path: a V8 CPU profile of the whole run (node:inspector's Profiler), written as a `.cpuprofile` JSON
// document when the router stops (Chrome DevTools and speedscope open it). profile.memory.path: one JSON line of
// v8.getHeapStatistics() (plus the time and process.memoryUsage()) appended every profile.memory.intervalMs.

import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector';
import { dirname } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import type { Logger } from '../../common/log/logger.ts';
import type { Clock } from '../../common/time/clock.ts';
import type { ProfileConfig } from '../config/router-config.ts';

export class RouterProfiler {
  private session: Session | undefined;
  private memoryTimer: NodeJS.Timeout | undefined;
  private memoryWrite: Promise<void> = Promise.resolve();

  constructor(
    private readonly config: ProfileConfig | undefined,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    const cpu = this.config?.cpu;
    if (cpu) {
      const session = new Session();
      session.connect();
      await post(session, 'Profiler.enable');
      await post(session, 'Profiler.start');
      this.session = session;
      this.logger.info('CPU profiling started; the profile is written when the router stops', { path: cpu.path });
    }
    const memory = this.config?.memory;
    if (memory) {
      await mkdir(dirname(memory.path), { recursive: true });
      const sample = () => {
        const line = `${JSON.stringify({ time: new Date(this.clock.now()).toISOString(), heap: getHeapStatistics(), memoryUsage: process.memoryUsage() })}\n`;
        this.memoryWrite = this.memoryWrite.then(() => appendFile(memory.path, line, { mode: 0o600 })).catch((error: Error) => this.logger.error('cannot write the memory profile', { path: memory.path, error: error.message }));
      };
      sample();
      this.memoryTimer = setInterval(sample, memory.intervalMs);
      this.memoryTimer.unref();
      this.logger.info('memory profiling started', { path: memory.path, intervalMs: memory.intervalMs });
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.memoryTimer);
    await this.memoryWrite;
    const session = this.session;
    const cpu = this.config?.cpu;
    this.session = undefined;
    if (!session || !cpu) return;
    try {
      const result = (await post(session, 'Profiler.stop')) as { profile: unknown };
      await mkdir(dirname(cpu.path), { recursive: true });
      await writeFile(cpu.path, JSON.stringify(result.profile));
      this.logger.info('CPU profile written', { path: cpu.path });
    } catch (error) {
      this.logger.error('cannot write the CPU profile', { path: cpu.path, error: (error as Error).message });
    } finally {
      session.disconnect();
    }
  }
}

function post(session: Session, method: string): Promise<unknown> {
  return new Promise((resolve, reject) => session.post(method, (error, result) => (error ? reject(error) : resolve(result))));
}
