// How `./edgeward agent` finds the local controller without --socket: each running controller leaves a small file
// naming its agent socket in a per-user registry directory and removes it when it stops.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

export interface AgentEntry {
  readonly id: string;
  readonly pid: number;
  readonly socket: string;
}

export function registryDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.EDGEWARD_AGENT_REGISTRY ?? join(env.XDG_RUNTIME_DIR ?? tmpdir(), `edgeward-agents-${userInfo().uid}`);
}

export function registerAgent(entry: AgentEntry, dir = registryDir()): () => void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `${entry.pid}.json`);
  writeFileSync(file, JSON.stringify(entry), { mode: 0o600 });
  return () => rmSync(file, { force: true });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

export function runningAgents(dir = registryDir()): AgentEntry[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const entries: AgentEntry[] = [];
  for (const name of names.filter((candidate) => candidate.endsWith('.json'))) {
    try {
      const entry = JSON.parse(readFileSync(join(dir, name), 'utf8')) as AgentEntry;
      if (alive(entry.pid)) entries.push(entry);
      else rmSync(join(dir, name), { force: true });
    } catch {
      rmSync(join(dir, name), { force: true });
    }
  }
  return entries;
}
