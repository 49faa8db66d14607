// CPU time a process has used (user + system, all its threads), read from /proc. Throughput on a machine shared
// with wrk and other work swings from run to run; CPU per request of the server process does not.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    const answer = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8', timeout: 5_000 });
    const value = Number(answer.stdout?.trim());
    ticksPerSecond = Number.isInteger(value) && value > 0 ? value : 100;
  }
  return ticksPerSecond;
}

/** User + system seconds from a /proc stat file (a process's or one thread's), with those of the children it has
 * reaped when asked; throws where it cannot be read. */
function statCpuSeconds(path: string, withReapedChildren = false): number {
  const stat = readFileSync(path, 'utf8');
  // Fields after the parenthesised command name: state is the first, utime the 12th, stime the 13th, then the
  // reaped children's cutime and cstime.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const own = Number(fields[11]) + Number(fields[12]);
  return (withReapedChildren ? own + Number(fields[13]) + Number(fields[14]) : own) / clockTicks();
}

/** Seconds of CPU used so far by `pid`, or undefined where /proc is unavailable or the process is gone. */
export function processCpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    return statCpuSeconds(`/proc/${pid}/stat`);
  } catch {
    return undefined;
  }
}

/** Seconds of CPU used so far by `pid` and by the children it has reaped (socat forks one per connection), or
 * undefined where /proc is unavailable or the process is gone. */
export function processCpuWithChildrenSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    return statCpuSeconds(`/proc/${pid}/stat`, true);
  } catch {
    return undefined;
  }
}

/** Seconds of CPU used so far by each thread of `pid`, by thread id; undefined where /proc is unavailable or the
 * process is gone. (A thread that exits between two readings drops out of the comparison.) */
export function threadCpuSeconds(pid: number | undefined): Map<string, number> | undefined {
  if (pid === undefined) return undefined;
  try {
    const threads = new Map<string, number>();
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        threads.set(tid, statCpuSeconds(`/proc/${pid}/task/${tid}/stat`));
      } catch {
        // Gone since the listing.
      }
    }
    return threads;
  } catch {
    return undefined;
  }
}

/** The most CPU any one thread used between two readings of threadCpuSeconds (seconds). */
export function busiestThreadSeconds(before: ReadonlyMap<string, number>, after: ReadonlyMap<string, number>): number {
  let most = 0;
  for (const [tid, seconds] of after) {
    const start = before.get(tid);
    if (start !== undefined && seconds - start > most) most = seconds - start;
  }
  return most;
}

/** Resident memory of `pid` (VmRSS), or undefined once it is gone. */
export function residentBytes(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const kib = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kib === undefined ? undefined : Number(kib) * 1024;
  } catch {
    return undefined;
  }
}
