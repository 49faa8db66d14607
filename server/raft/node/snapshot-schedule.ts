// When a member next considers taking a snapshot: at a random time between one and two snapshot intervals, as
// hashicorp/raft (under OpenZiti's controller) staggers its snapshot checks. Members started together would
// otherwise snapshot together, every interval: encoding a large model takes each member's only thread for seconds,
// and with every member busy at once the leader got no acknowledgements and writes stopped (at 440k identities,
// 0-700 writes/s for ~5 s every interval, against ~6000 between). Staggered, a follower's snapshot leaves the leader
// a quorum with the other follower.

/** Milliseconds until the next snapshot check; `random` is uniform in [0, 1). */
export function nextSnapshotCheckMs(intervalMs: number, random: () => number = Math.random): number {
  return Math.floor(intervalMs * (1 + random()));
}
