// The state may hold controllers the config no longer names (the daemon restarted with an edited alerts.yml): on a
// tick their alerts resolve and their state goes, so that nothing fires forever about a controller nobody watches.

import { clusterScopeController } from './rule-context.ts';
import type { RuleContext } from './rule-context.ts';

export function forgetUnconfigured(ctx: RuleContext): void {
  const configured = new Set(ctx.settings.controllers);
  const withEvents = new Set(ctx.settings.commitLagControllers);
  for (const instance of Object.values(ctx.state.firing)) {
    const controller = instance.labels.controller;
    if (controller === undefined || controller === clusterScopeController) continue;
    const watched = configured.has(controller) && (instance.alert !== 'EdgewardCommitLagHigh' || withEvents.has(controller));
    if (!watched) ctx.book.resolve(instance.alert, instance.labels, ctx.now);
  }
  for (const key of Object.keys(ctx.state.oneShot)) if (!Object.hasOwn(ctx.state.firing, key)) delete ctx.state.oneShot[key];
  const perController = [ctx.state.leaderless, ctx.state.readOnly, ctx.state.peerDisconnects, ctx.state.health, ctx.state.metrics, ctx.state.queue, ctx.state.window, ctx.state.latency];
  for (const table of perController) for (const controller of Object.keys(table)) if (!configured.has(controller)) delete (table as Record<string, unknown>)[controller];
  for (const controller of Object.keys(ctx.state.commitLag)) if (!withEvents.has(controller)) delete ctx.state.commitLag[controller];
}
