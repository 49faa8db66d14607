// Turns the configured raft timeouts (milliseconds) into the core's ticks: a tick short enough to resolve the
// heartbeat interval, the election timeout a whole number of ticks (the core randomises it up to twice that).
import type { RaftNodeTiming } from '../raft/node/raft-node.ts';
import type { RaftOptions } from './controller-options.ts';

export function raftTiming(options: RaftOptions): RaftNodeTiming {
  const tickMs = Math.max(5, Math.min(50, Math.floor(options.heartbeatTimeoutMs / 2)));
  const heartbeatTicks = Math.max(1, Math.round(options.heartbeatTimeoutMs / tickMs));
  const electionTicks = Math.max(heartbeatTicks + 1, Math.round(options.electionTimeoutMs / tickMs));
  return { tickMs, heartbeatTicks, electionTicks, commitTimeoutMs: options.commitTimeoutMs };
}
