// The compact text the interaction scripts compare: one line per message, entry or fact, so a golden file reads
// like a trace of the cluster. Pure functions of the harness's reports and the cores' status.
import type { ConfigEntryData, RaftStatus } from '../core/raft-core.ts';
import type { RaftLog } from '../core/raft-log.ts';
import type { ConfigChange, Configuration, Entry, HardState, Message, Snapshot, SoftState } from '../core/types.ts';
import type { Delivery, DurableState, EnvNode, MachineState, ReadyReport, StabilizeEvent } from './interaction-env.ts';

/** `4/2 "data"`, `5/2 noop`, `6/2 conf add n4 voter`; an entry with null data is just `index/term`. */
export function formatEntry(entry: Entry): string {
  const at = `${entry.index}/${entry.term}`;
  if (entry.type === 'noop') return `${at} noop`;
  if (entry.type === 'config') return `${at} conf ${formatChange((entry.data as ConfigEntryData).change)}`;
  return entry.data === null || entry.data === undefined ? at : `${at} ${JSON.stringify(entry.data)}`;
}

export function formatEntries(entries: readonly Entry[]): string {
  return entries.map(formatEntry).join(', ');
}

export function formatChange(change: ConfigChange): string {
  return change.kind === 'add' ? `add ${change.id} ${change.voter ? 'voter' : 'nonvoter'}` : `remove ${change.id}`;
}

export function formatConfiguration(configuration: Configuration): string {
  const voters = `voters=(${configuration.voters.join(' ')})`;
  return configuration.nonVoters.length > 0 ? `${voters} nonvoters=(${configuration.nonVoters.join(' ')})` : voters;
}

export function formatSnapshot(snapshot: Snapshot): string {
  const { index, term, configuration } = snapshot.meta;
  return `${index}/${term} ${formatConfiguration(configuration)}`;
}

export function formatMessage(m: Message): string {
  const head = `${m.from}->${m.to} ${m.type} t${m.term}`;
  switch (m.type) {
    case 'PreVote':
    case 'Vote':
      return `${head} last ${m.lastIndex}/${m.lastTerm}${m.transfer ? ' transfer' : ''}`;
    case 'PreVoteResp':
    case 'VoteResp':
      return `${head} ${m.reject ? 'reject' : 'grant'}`;
    case 'Append':
      return `${head} prev ${m.prevIndex}/${m.prevTerm} commit ${m.commit}${m.entries.length > 0 ? ` [${formatEntries(m.entries)}]` : ''}`;
    case 'AppendResp':
      return m.reject ? `${head} reject ${m.index} hint ${m.rejectHint}/${m.hintTerm}` : `${head} ok ${m.index}`;
    case 'Heartbeat':
      return `${head} commit ${m.commit}`;
    case 'Snapshot':
      return `${head} ${formatSnapshot(m.snapshot)}`;
    case 'HeartbeatResp':
    case 'TimeoutNow':
      return head;
  }
}

export function formatSoftState(soft: SoftState): string {
  return `${soft.role} term ${soft.term} lead ${soft.leader ?? '-'}`;
}

export function formatHardState(hard: HardState): string {
  return `term ${hard.term} vote ${hard.vote ?? '-'} commit ${hard.commit}`;
}

/** A handled Ready; `withMessages` off when the messages are shown as they are delivered instead. */
export function formatReady(report: ReadyReport, withMessages: boolean): string[] {
  const lines: string[] = [];
  if (report.softState) lines.push(`  role: ${formatSoftState(report.softState)}`);
  if (report.hardState) lines.push(`  hard: ${formatHardState(report.hardState)}`);
  if (report.snapshot) lines.push(`  install snapshot: ${formatSnapshot(report.snapshot)}`);
  if (report.entries.length > 0) lines.push(`  persist: ${formatEntries(report.entries)}`);
  if (withMessages) for (const message of report.messages) lines.push(`  send: ${formatMessage(message)}`);
  if (report.committedEntries.length > 0) lines.push(`  apply: ${formatEntries(report.committedEntries)}`);
  if (lines.length === 0 && !withMessages) return [];
  return [`> ${report.node} ready`, ...(lines.length > 0 ? lines : ['  (nothing)'])];
}

/** Delivered (or dropped) messages, one a line; a run of identical lines (say, heartbeats lost) is shown once. */
export function formatDeliveries(to: string, deliveries: readonly Delivery[]): string[] {
  const lines = deliveries.map((d) => `  ${formatMessage(d.message)}${d.dropped ? ` (dropped${d.dropped === 'dropped' ? '' : `: ${d.dropped}`})` : ''}`);
  return [`> ${to} receives`, ...collapseRuns(lines)];
}

function collapseRuns(lines: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < lines.length; ) {
    let j = i + 1;
    while (j < lines.length && lines[j] === lines[i]) j++;
    out.push(j - i > 1 ? `${lines[i]} x${j - i}` : lines[i]!);
    i = j;
  }
  return out;
}

/** Stabilize output: Readies without their messages (each message appears once, where it is delivered). */
export function formatStabilize(events: readonly StabilizeEvent[]): string[] {
  return events.flatMap((event) => (event.kind === 'ready' ? formatReady(event.report, false) : formatDeliveries(event.to, event.deliveries)));
}

export function formatStatus(status: RaftStatus): string[] {
  const log = status.firstIndex > status.lastIndex ? 'log empty' : `log ${status.firstIndex}..${status.lastIndex}`;
  const snapshot = status.firstIndex > 1 ? ` after snapshot ${status.firstIndex - 1}` : '';
  const lines = [
    `${status.id}: ${status.role} term ${status.term} vote ${status.vote ?? '-'} lead ${status.leader ?? '-'}`,
    `  commit ${status.commit} applied ${status.applied} ${log}${snapshot} last ${status.lastIndex}/${status.lastTerm}`,
    `  ${formatConfiguration(status.configuration)}`,
  ];
  if (status.transferee) lines.push(`  transferring leadership to ${status.transferee}`);
  for (const [id, pr] of Object.entries(status.progress)) lines.push(`  ${id}: match ${pr.match} next ${pr.next} ${pr.state}`);
  return lines;
}

/** A node that is down: only what it synced. */
export function formatDownStatus(node: EnvNode): string[] {
  const { durable } = node;
  const last = durable.entries.at(-1);
  const log = last ? `log ${durable.entries[0]!.index}..${last.index}` : 'log empty';
  return [
    `${node.id}: down`,
    `  durable: ${durable.hardState ? formatHardState(durable.hardState) : 'no hard state'}, ${log}${durable.snapshot ? `, snapshot ${formatSnapshot(durable.snapshot)}` : ''}`,
  ];
}

/** The core's log, marking what the driver has not persisted yet. */
export function formatLog(log: RaftLog): string[] {
  const lines: string[] = [];
  if (log.snapshotIndex > 0) lines.push(`(compacted up to ${log.snapshotIndex}/${log.snapshotTerm})`);
  for (const entry of log.slice(log.firstIndex(), log.lastIndex())) lines.push(`${formatEntry(entry)}${entry.index > log.stableIndex ? ' (unstable)' : ''}`);
  if (lines.length === 0) lines.push('(empty)');
  return lines;
}

export function formatDurableLog(durable: DurableState): string[] {
  const lines = [`(down: durable log)`];
  if (durable.snapshot) lines.push(`(snapshot ${formatSnapshot(durable.snapshot)})`);
  for (const entry of durable.entries) lines.push(formatEntry(entry));
  return lines;
}

export function formatMachine(id: string, machine: MachineState): string {
  const commands = machine.commands.map((command) => JSON.stringify(command.data)).join(' ');
  return `${id} applied ${machine.index}: ${commands || '(no commands)'}`;
}
