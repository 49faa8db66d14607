// Test support for the raft store tests: a raft.db path in a fresh temp folder, and a way to remove it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function tempRaftDb(prefix: string): Promise<{ dir: string; path: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), `edgeward-${prefix}-`));
  return { dir, path: join(dir, 'raft.db'), remove: () => rm(dir, { recursive: true, force: true }) };
}
