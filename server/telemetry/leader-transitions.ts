// What a raft role or leader change means for the leadership counters: this controller became leader, and the
// leader it knows changed (to another controller, or to none). Pure; starts from "follower, no leader known", so
// a controller that is leader by the time it is watched counts that as gaining leadership.
export interface LeaderState {
  readonly isLeader: boolean;
  readonly leader: string | null;
}

export interface LeaderTransition {
  readonly gained: boolean;
  readonly changed: boolean;
}

const none: LeaderTransition = Object.freeze({ gained: false, changed: false });

export class LeaderTransitions {
  private isLeader = false;
  private leader: string | null = null;

  next(state: LeaderState): LeaderTransition {
    const gained = state.isLeader && !this.isLeader;
    const changed = state.leader !== this.leader;
    this.isLeader = state.isLeader;
    this.leader = state.leader;
    return gained || changed ? { gained, changed } : none;
  }
}
