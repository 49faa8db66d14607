// Every process the benchmark starts is stopped before it exits, on success, failure, timeout or a signal:
// tracked children are signalled by pid, then any direct child still alive (say, a controller whose fixture
// failed before handing it over) is found in /proc and stopped too.
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const tracked = new Set<ChildProcess>();

export function track(child: ChildProcess): ChildProcess {
  tracked.add(child);
  child.once('exit', () => tracked.delete(child));
  return child;
}

const isRunning = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

/** SIGTERM, then SIGKILL if it has not exited within `graceMs`. */
export async function stopChild(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (!isRunning(child)) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => isRunning(child) && child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Direct children of this process that are still alive, read from /proc (Linux). */
function untrackedChildPids(): number[] {
  const pids: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return pids;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name is in parentheses and may hold spaces; the parent pid is the second field after it.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === process.pid && fields[0] !== 'Z') pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

export async function stopAllChildren(graceMs = 5_000): Promise<void> {
  await Promise.all([...tracked].map((child) => stopChild(child, graceMs)));
  const leftovers = untrackedChildPids();
  for (const pid of leftovers) process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (leftovers.some(alive) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  for (const pid of leftovers.filter(alive)) process.kill(pid, 'SIGKILL');
}
