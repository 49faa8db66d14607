// The first start after `controller restore` or `controller recover` says so: a warning in the log and a cluster
// `members.changed` event naming the new membership (this controller alone), what it was, and why, so that the
// forced change is on record where every other membership change is.
import type { Logger } from '../../common/log/logger.ts';
import type { Clock } from '../../common/time/clock.ts';
import type { EventDispatcher } from '../events/event-dispatcher.ts';
import type { ClusterRaft } from '../raft/node/raft-node.ts';
import type { ControllerOptions } from './controller-options.ts';
import { takeForcedMembershipNote } from './disaster-recovery.ts';

export function announceForcedMembership(options: ControllerOptions, raft: ClusterRaft, dispatcher: EventDispatcher, clock: Clock, logger: Logger): void {
  const note = takeForcedMembershipNote(options.dataDir, logger);
  if (!note) return;
  const previous = [...note.previousVoters, ...note.previousNonVoters];
  logger.warn(note.kind === 'recover' ? 'cluster membership forced to this controller by controller recover' : 'cluster restored from a backup with this controller as its only voter', {
    at: note.at,
    index: note.index,
    term: note.term,
    clusterId: note.clusterId,
    previousMembers: previous,
    ...(note.backup ? { backup: note.backup } : {}),
  });
  const status = raft.status();
  dispatcher.dispatch('cluster', {
    namespace: 'cluster',
    event_src_id: options.id,
    timestamp: new Date(clock.now()).toISOString(),
    eventType: 'members.changed',
    index: status.commit,
    raftIndex: status.commit,
    peers: [{ id: options.id, addr: options.cluster.address, apiAddresses: null, isPreferredLeader: false }],
    forced: { by: note.kind, at: note.at, index: note.index, term: note.term, previousPeers: previous, ...(note.backup ? { backup: note.backup } : {}) },
  });
}
