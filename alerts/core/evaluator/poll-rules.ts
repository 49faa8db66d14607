// What the health and metric polls do: no controller answering 200 pages, a lost majority of voters pages, and a
// rate limiter that stays queued or keeps shrinking warns. A follower's 429 is an answer like any other: only the
// absence of any 200 across the cluster counts. Conditions must hold for their window, so a restart does not page.

import type { ControllerMetricsView } from '../metrics/controller-metrics-view.ts';
import type { HealthStatus } from './observations.ts';
import { clusterScopeController, formatMs } from './rule-context.ts';
import type { RuleContext } from './rule-context.ts';

export function noteHealth(ctx: RuleContext, controller: string, status: HealthStatus): void {
  ctx.state.health[controller] = { status, at: ctx.now };
  evaluateNoHealthy(ctx);
}

export function evaluateNoHealthy(ctx: RuleContext): void {
  const entries = Object.entries(ctx.state.health);
  if (entries.length === 0) return;
  const labels = { controller: clusterScopeController };
  if (entries.some(([, health]) => health.status === 200)) {
    delete ctx.state.noHealthySince;
    ctx.book.resolve('EdgewardNoControllerHealthy', labels, ctx.now);
    return;
  }
  ctx.state.noHealthySince ??= ctx.now;
  const window = ctx.settings.rules.noHealthyFor;
  if (ctx.now - ctx.state.noHealthySince < window) return;
  const answers = entries.map(([controller, health]) => `${controller} ${health.status}`).join(', ');
  ctx.book.fire('EdgewardNoControllerHealthy', labels, ctx.state.noHealthySince + window, `No controller answered 200 for ${formatMs(window)} (${answers}).`, 0);
}

export function noteMetrics(ctx: RuleContext, controller: string, view: ControllerMetricsView): void {
  ctx.state.metrics[controller] = {
    at: ctx.now,
    ...(view.isLeader === undefined ? {} : { isLeader: view.isLeader }),
    ...(view.voters === undefined ? {} : { voters: view.voters }),
    ...(view.votersConnected === undefined ? {} : { votersConnected: view.votersConnected }),
  };
  clearStateAlertsFromPoll(ctx, controller, view);
  evaluateQueue(ctx, controller, view.queueSize);
  evaluateWindow(ctx, controller, view.windowSize);
  evaluateQuorum(ctx);
}

/** A leaderless or read-only page whose clearing record never came (the controller stopped, or its events are not
 * tailed) resolves when a poll, well after the last record, shows the state is over. */
function clearStateAlertsFromPoll(ctx: RuleContext, controller: string, view: ControllerMetricsView): void {
  const settled = (lastAt: number) => ctx.now - lastAt >= ctx.settings.rules.metricsStaleAfter;
  const leaderless = ctx.state.leaderless[controller];
  if (view.hasLeader === true && leaderless && settled(leaderless.lastAt)) {
    delete leaderless.pendingSince;
    if (ctx.book.isFiring('EdgewardClusterLeaderless', { controller })) {
      leaderless.lastAt = ctx.now;
      ctx.book.resolve('EdgewardClusterLeaderless', { controller }, ctx.now);
    }
  }
  const readOnly = ctx.state.readOnly[controller];
  if (view.readOnly === false && readOnly && settled(readOnly.lastAt)) {
    delete readOnly.pendingSince;
    delete readOnly.pendingWhat;
    if (ctx.book.isFiring('EdgewardClusterReadOnly', { controller })) {
      readOnly.lastAt = ctx.now;
      ctx.book.resolve('EdgewardClusterReadOnly', { controller }, ctx.now);
    }
  }
}

function evaluateQueue(ctx: RuleContext, controller: string, queueSize: number | undefined): void {
  if (queueSize === undefined) return;
  const labels = { controller };
  if (queueSize <= 0) {
    delete ctx.state.queue[controller];
    ctx.book.resolve('EdgewardRateLimiterQueueSustained', labels, ctx.now);
    return;
  }
  const since = (ctx.state.queue[controller] ??= ctx.now);
  const window = ctx.settings.rules.queueSustainedFor;
  if (ctx.now - since >= window) {
    ctx.book.fire('EdgewardRateLimiterQueueSustained', labels, since + window, `${controller}: the raft rate limiter queue stayed above 0 for ${formatMs(window)} (now ${queueSize}).`, queueSize);
  }
}

/** Below the highest window seen and not growing since it last fell, for the duration, warns; any growth resolves. */
function evaluateWindow(ctx: RuleContext, controller: string, windowSize: number | undefined): void {
  if (windowSize === undefined) return;
  const labels = { controller };
  const entry = ctx.state.window[controller];
  if (!entry) {
    ctx.state.window[controller] = { max: windowSize, previous: windowSize };
    return;
  }
  entry.max = Math.max(entry.max, windowSize);
  if (windowSize > entry.previous || windowSize >= entry.max) {
    delete entry.since;
    ctx.book.resolve('EdgewardRateLimiterWindowShrinking', labels, ctx.now);
  } else if (windowSize < entry.previous) {
    entry.since ??= ctx.now;
  }
  entry.previous = windowSize;
  const window = ctx.settings.rules.windowShrinkingFor;
  if (entry.since !== undefined && ctx.now - entry.since >= window) {
    ctx.book.fire(
      'EdgewardRateLimiterWindowShrinking',
      labels,
      entry.since + window,
      `${controller}: the raft rate limiter window fell to ${windowSize} (highest seen ${entry.max}) and has not grown for ${formatMs(window)}.`,
      windowSize,
    );
  }
}

/** The leader's view of connected voters; with no leader among the fresh polls, the best view of any controller. */
export function evaluateQuorum(ctx: RuleContext): void {
  const fresh = Object.entries(ctx.state.metrics).filter(
    ([, snapshot]) => ctx.now - snapshot.at <= ctx.settings.rules.metricsStaleAfter && snapshot.voters !== undefined && snapshot.votersConnected !== undefined,
  );
  if (fresh.length === 0) return;
  const leaders = fresh.filter(([, snapshot]) => snapshot.isLeader === true);
  const candidates = leaders.length > 0 ? leaders : fresh;
  const [controller, view] = candidates.reduce((best, next) => (next[1].votersConnected! > best[1].votersConnected! ? next : best));
  const voters = view.voters!;
  const connected = view.votersConnected!;
  const majority = Math.floor(voters / 2) + 1;
  const labels = { controller: clusterScopeController };
  if (connected >= majority) {
    delete ctx.state.quorumLostSince;
    ctx.book.resolve('EdgewardQuorumLost', labels, ctx.now);
    return;
  }
  ctx.state.quorumLostSince ??= ctx.now;
  const window = ctx.settings.rules.quorumLostFor;
  if (ctx.now - ctx.state.quorumLostSince < window) return;
  const whose = leaders.length > 0 ? `the leader ${controller}` : `${controller} (no leader answered; the best view)`;
  ctx.book.fire('EdgewardQuorumLost', labels, ctx.state.quorumLostSince + window, `${whose} sees ${connected} of ${voters} voters connected; a majority is ${majority}.`, connected);
}

/** On a tick: a controller whose metrics are stale no longer holds its metric warnings. */
export function dropStaleMetrics(ctx: RuleContext): void {
  for (const [controller, snapshot] of Object.entries(ctx.state.metrics)) {
    if (ctx.now - snapshot.at <= ctx.settings.rules.metricsStaleAfter) continue;
    delete ctx.state.metrics[controller];
    delete ctx.state.queue[controller];
    delete ctx.state.window[controller];
    delete ctx.state.latency[controller];
    for (const alert of ['EdgewardRateLimiterQueueSustained', 'EdgewardRateLimiterWindowShrinking', 'EdgewardPeerLatencyJump'] as const) {
      for (const instance of ctx.book.instancesOf(alert, { controller })) ctx.book.resolve(alert, instance.labels, ctx.now);
    }
  }
}
