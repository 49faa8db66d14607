// What log lines and cluster events do: the leaderless and read-only pages (set by one record, cleared by
// another, the newest record winning), one-shot warnings with their hold time, and the counts behind peer flapping
// and leadership churn. A single peer or leadership record never raises anything by itself.

import type { Effect, OneShotAlert, StateAlert } from '../rules/alert-rules.ts';
import { instanceKey } from './alert-change.ts';
import { countSince, pairAcrossSources, pairHandover, prune, report } from './occurrences.ts';
import { clusterScopeController, formatMs } from './rule-context.ts';
import type { RuleContext } from './rule-context.ts';

export interface RecordFacts {
  readonly controller: string;
  /** The record's time (already clamped to now). */
  readonly at: number;
  /** `log` or `event`: a log line and an event about one peer disconnect count once. */
  readonly source: 'log' | 'event';
  readonly peerId?: string;
  /** What the record was, for descriptions. */
  readonly what: string;
}

export function applyEffect(ctx: RuleContext, effect: Effect, facts: RecordFacts): void {
  switch (effect.kind) {
    case 'raise':
      return raise(ctx, effect.alert, facts);
    case 'clear':
      return clear(ctx, effect.alert, facts);
    case 'leaderless-pending':
      return leaderlessPending(ctx, facts);
    case 'one-shot':
      return oneShot(ctx, effect.alert, effect.onlyWithPreferredLeaders ?? false, facts);
    case 'peer-change':
      if (effect.change === 'disconnected') peerDisconnected(ctx, facts);
      return;
    case 'leadership-change':
      return leadershipChanged(ctx, effect.change, facts);
  }
}

/** The newest record about a state alert wins; an older one (the same transition read later from the other file) is
 * ignored. */
function stateEntry(ctx: RuleContext, alert: StateAlert, controller: string): { lastAt: number; pendingSince?: number; pendingWhat?: string } {
  const table = alert === 'EdgewardClusterLeaderless' ? ctx.state.leaderless : ctx.state.readOnly;
  return (table[controller] ??= { lastAt: Number.NEGATIVE_INFINITY });
}

function raise(ctx: RuleContext, alert: StateAlert, facts: RecordFacts): void {
  if (alert === 'EdgewardClusterReadOnly' && ctx.settings.rules.readOnlyFor > 0) return readOnlyPending(ctx, facts);
  const entry = stateEntry(ctx, alert, facts.controller);
  if (facts.at < entry.lastAt) return;
  entry.lastAt = facts.at;
  delete entry.pendingSince;
  ctx.book.fire(alert, { controller: facts.controller }, facts.at, `${facts.controller}: ${facts.what}.`);
}

/** Read-only mode pages only when it outlasts `readOnlyFor`: a rolling upgrade passes through it (as the Prometheus
 * rule's `for:` says, from the same monitoring mixin value). */
function readOnlyPending(ctx: RuleContext, facts: RecordFacts): void {
  const entry = (ctx.state.readOnly[facts.controller] ??= { lastAt: Number.NEGATIVE_INFINITY });
  if (facts.at < entry.lastAt) return;
  entry.lastAt = facts.at;
  if (entry.pendingSince !== undefined || ctx.book.isFiring('EdgewardClusterReadOnly', { controller: facts.controller })) return;
  entry.pendingSince = facts.at;
  entry.pendingWhat = facts.what;
  expireReadOnlyHold(ctx);
}

/** On a tick (and on a late record): a read-only start not cleared within `readOnlyFor` pages. */
export function expireReadOnlyHold(ctx: RuleContext): void {
  const hold = ctx.settings.rules.readOnlyFor;
  for (const [controller, entry] of Object.entries(ctx.state.readOnly)) {
    if (entry.pendingSince === undefined || ctx.now - entry.pendingSince < hold) continue;
    const since = entry.pendingSince;
    const what = entry.pendingWhat ?? 'read-only mode';
    delete entry.pendingSince;
    delete entry.pendingWhat;
    ctx.book.fire('EdgewardClusterReadOnly', { controller }, since + hold, `${controller}: ${what}, and still read-only after ${formatMs(hold)}.`);
  }
}

function clear(ctx: RuleContext, alert: StateAlert, facts: RecordFacts): void {
  const entry = stateEntry(ctx, alert, facts.controller);
  if (facts.at < entry.lastAt) return;
  entry.lastAt = facts.at;
  delete entry.pendingSince;
  delete entry.pendingWhat;
  ctx.book.resolve(alert, { controller: facts.controller }, facts.at);
}

function leaderlessPending(ctx: RuleContext, facts: RecordFacts): void {
  const entry = stateEntry(ctx, 'EdgewardClusterLeaderless', facts.controller);
  if (facts.at < entry.lastAt) return;
  entry.lastAt = facts.at;
  if (entry.pendingSince === undefined && !ctx.book.isFiring('EdgewardClusterLeaderless', { controller: facts.controller })) entry.pendingSince = facts.at;
}

/** On a tick: a leaderless start not cleared within the tolerance pages. */
export function expireLeaderlessTolerance(ctx: RuleContext): void {
  const tolerance = ctx.settings.rules.leaderlessTolerance;
  for (const [controller, entry] of Object.entries(ctx.state.leaderless)) {
    if (entry.pendingSince === undefined || ctx.now - entry.pendingSince < tolerance) continue;
    const since = entry.pendingSince;
    delete entry.pendingSince;
    ctx.book.fire(
      'EdgewardClusterLeaderless',
      { controller },
      since + tolerance,
      `${controller}: state.is_leaderless with no state.has_leader within ${formatMs(tolerance)}.`,
    );
  }
}

export function hasPreferredLeaders(ctx: RuleContext): boolean {
  return ctx.settings.preferredLeaders.length > 0 || Object.keys(ctx.state.preferredPeers).length > 0;
}

function oneShot(ctx: RuleContext, alert: OneShotAlert, onlyWithPreferredLeaders: boolean, facts: RecordFacts): void {
  if (onlyWithPreferredLeaders && !hasPreferredLeaders(ctx)) return;
  const hold = ctx.settings.rules.oneShotHold;
  // A line that would already have resolved (read late, after a long stop) raises nothing.
  if (facts.at + hold <= ctx.now) return;
  const labels = { controller: facts.controller };
  const key = instanceKey(alert, labels);
  ctx.state.oneShot[key] = Math.max(ctx.state.oneShot[key] ?? Number.NEGATIVE_INFINITY, facts.at);
  ctx.book.fire(alert, labels, facts.at, `${facts.controller}: ${facts.what}.`);
}

/** On a tick: one-shot warnings resolve `oneShotHold` after their last match. */
export function expireOneShots(ctx: RuleContext): void {
  const hold = ctx.settings.rules.oneShotHold;
  for (const [key, lastMatch] of Object.entries(ctx.state.oneShot)) {
    if (ctx.now < lastMatch + hold) continue;
    delete ctx.state.oneShot[key];
    const instance = ctx.state.firing[key];
    if (instance) ctx.book.resolve(instance.alert, instance.labels, lastMatch + hold);
  }
}

function peerDisconnected(ctx: RuleContext, facts: RecordFacts): void {
  if (facts.peerId === undefined) return;
  const { pairWindow } = ctx.settings.rules.peerFlapping;
  const peers = (ctx.state.peerDisconnects[facts.controller] ??= {});
  const list = (peers[facts.peerId] ??= []);
  report(list, facts.at, facts.source, pairWindow, pairAcrossSources);
  evaluateFlapping(ctx, facts.controller, facts.peerId);
}

function evaluateFlapping(ctx: RuleContext, controller: string, peer: string): void {
  const { count, window, pairWindow } = ctx.settings.rules.peerFlapping;
  const peers = ctx.state.peerDisconnects[controller];
  const list = peers?.[peer];
  if (!peers || !list) return;
  prune(list, ctx.now - window - pairWindow);
  const seen = countSince(list, ctx.now - window);
  const labels = { controller, peer_id: peer };
  if (seen >= count) {
    ctx.book.fire('EdgewardPeerFlapping', labels, list[list.length - 1]!.at, `${controller} lost its channel to ${peer} ${seen} times within ${formatMs(window)}.`, seen);
  } else {
    ctx.book.resolve('EdgewardPeerFlapping', labels, ctx.now);
  }
  if (list.length === 0) delete peers[peer];
  if (Object.keys(peers).length === 0) delete ctx.state.peerDisconnects[controller];
}

function leadershipChanged(ctx: RuleContext, change: 'gained' | 'lost', facts: RecordFacts): void {
  report(ctx.state.leadershipChanges, facts.at, `${change}:${facts.controller}`, ctx.settings.rules.leadershipChurn.pairWindow, pairHandover);
  evaluateChurn(ctx);
}

function evaluateChurn(ctx: RuleContext): void {
  const { count, window, pairWindow } = ctx.settings.rules.leadershipChurn;
  const list = ctx.state.leadershipChanges;
  prune(list, ctx.now - window - pairWindow);
  const seen = countSince(list, ctx.now - window);
  const labels = { controller: clusterScopeController };
  if (seen >= count) {
    ctx.book.fire('EdgewardLeadershipChurn', labels, list[list.length - 1]!.at, `Leadership changed ${seen} times within ${formatMs(window)}.`, seen);
  } else {
    ctx.book.resolve('EdgewardLeadershipChurn', labels, ctx.now);
  }
}

/** On a tick: counts slide out of their windows. */
export function slideWindows(ctx: RuleContext): void {
  for (const [controller, peers] of Object.entries(ctx.state.peerDisconnects)) {
    for (const peer of Object.keys(peers)) evaluateFlapping(ctx, controller, peer);
  }
  for (const instance of ctx.book.instancesOf('EdgewardPeerFlapping')) {
    const { controller, peer_id: peer } = instance.labels;
    if (controller !== undefined && peer !== undefined && !ctx.state.peerDisconnects[controller]?.[peer]) ctx.book.resolve('EdgewardPeerFlapping', instance.labels, ctx.now);
  }
  evaluateChurn(ctx);
}

/** Preferred-leader flags seen in cluster events: `members.changed` always says false, so only true counts there. */
export function notePreferredPeers(ctx: RuleContext, eventType: string, peers: readonly { id: string; isPreferredLeader?: boolean }[]): void {
  for (const peer of peers) {
    if (peer.isPreferredLeader === true) ctx.state.preferredPeers[peer.id] = true;
    else if (peer.isPreferredLeader === false && eventType === 'peer.connected') delete ctx.state.preferredPeers[peer.id];
  }
}
