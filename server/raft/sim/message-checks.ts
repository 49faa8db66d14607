// The checks made on every message as it leaves its sender: an answer must be durable, and a commit index a leader
// announces for the first time must be safe (checkers/durable-before-answered.ts, checkers/commit-safety.ts). This
// keeps the bookkeeping they need: the commit index each candidate campaigned with, and the highest each leader has
// announced in each term; and the votes granted, which the election check counts.
import type { ConfigEntryData } from '../core/raft-core.ts';
import type { Message, NodeId } from '../core/types.ts';
import { announcedCommit, checkCommit, type VoterState } from './checkers/commit-safety.ts';
import { checkAnswerIsDurable } from './checkers/durable-before-answered.ts';
import type { SafetyViolation } from './checkers/safety-violation.ts';
import type { SimServer } from './sim-server.ts';

export class MessageChecks {
  /** The highest commit index each leader (`id:term`) has announced, checked once each. */
  private readonly announced = new Map<string, number>();
  /** The commit index each candidate (`id:term`) campaigned with. */
  private readonly campaigned = new Map<string, number>();
  /** Each vote granted (`voter:term` → candidate), as it left the voter. */
  private readonly grants = new Map<string, NodeId>();

  constructor(
    private readonly servers: readonly SimServer[],
    private readonly report: (violation: SafetyViolation) => void,
  ) {}

  /** Called with each message as its sender sends it. */
  onSend(message: Message): void {
    const sender = this.server(message.from);
    const node = sender?.process?.node;
    if (!sender || !node) return;
    const unanswerable = checkAnswerIsDurable(message, sender.disk, node.log);
    if (unanswerable) this.report(unanswerable);
    if (message.type === 'VoteResp' && !message.reject && !this.grants.has(`${message.from}:${message.term}`)) this.grants.set(`${message.from}:${message.term}`, message.to);
    // A candidate's commit index, which it takes into its term if it wins.
    if (message.type === 'Vote') this.campaigned.set(`${message.from}:${message.term}`, node.log.committed);
    const commit = announcedCommit(message);
    if (commit === undefined || !node.isLeader()) return;
    const key = `${node.id}:${message.term}`;
    if (!this.announced.has(key)) {
      // What a new leader knew committed was decided by earlier leaders, under their configurations (a membership
      // change they appended may be gone from this leader's log): only what it commits itself is checked. Without a
      // campaign seen (a lone voter), its first announcement is taken as inherited.
      const inherited = this.campaigned.get(key) ?? commit;
      this.announced.set(key, inherited);
      if (commit <= inherited) return;
    }
    if (commit <= this.announced.get(key)!) return;
    this.announced.set(key, commit);
    // The leader decided it under the configuration then newest in its log: the one as of the commit index, or one
    // appended after it.
    const configurations = [node.configurationAt(commit)];
    for (let index = commit + 1; index <= node.log.lastIndex(); index++) {
      const entry = node.log.entry(index);
      if (entry?.type === 'config') configurations.push((entry.data as ConfigEntryData).configuration);
    }
    const voterStates = configurations.map((configuration) =>
      configuration.voters.flatMap((id) => {
        const server = this.server(id);
        return server ? [voterState(server)] : [];
      }),
    );
    const unsafe = checkCommit(node.id, node.log, commit, voterStates);
    if (unsafe) this.report(unsafe);
  }

  /** The candidate `voter` granted its vote to in `term`, if it granted one (the first, should there be two). */
  votedFor(voter: NodeId, term: number): NodeId | undefined {
    return this.grants.get(`${voter}:${term}`);
  }

  private server(id: string): SimServer | undefined {
    return this.servers.find((server) => server.id === id);
  }
}

/** What the commit check reads of a voter: its disk, and the log it would campaign with (in memory while it runs). */
function voterState(server: SimServer): VoterState {
  const log = server.node?.log;
  if (!log) return { id: server.id, disk: server.disk, campaignLast: server.disk.last(), termAt: (index) => server.disk.termAt(index) };
  const lastIndex = log.lastIndex();
  return {
    id: server.id,
    disk: server.disk,
    campaignLast: { index: lastIndex, term: log.term(lastIndex) ?? 0 },
    termAt: (index) => (index < log.snapshotIndex ? 'covered' : log.term(index)),
  };
}
