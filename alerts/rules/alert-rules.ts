// Every Prometheus alert rule, in the catalogue's order. The catalogue decides which alerts Prometheus raises (those
// whose sources include 'prometheus'); this list must hold exactly one rule for each, which `alertRules()` checks.
import { alertCatalogue, type AlertDefinition } from '../catalogue/alert-catalogue.ts';
import { clusterLeaderless, clusterReadOnly, leadershipChurn, noControllerHealthy, quorumLost } from './leader-alerts.ts';
import { circuitDialFailures } from './circuit-alerts.ts';
import { sdkTerminatorsGone } from './terminator-alerts.ts';
import { oidcRefreshFailures } from './oidc-alerts.ts';
import { backupsFailing, backupsStopped } from './backup-alerts.ts';
import { peerFlapping, peerLatencyJump } from './peer-alerts.ts';
import { alertDeliveryFailing, scrapeTargetDown } from './pipeline-alerts.ts';
import { commitLagHigh, raftDiskGrowth } from './raft-log-alerts.ts';
import { rateLimiterQueueSustained, rateLimiterWindowShrinking } from './rate-limiter-alerts.ts';
import type { AlertRule } from './rule-model.ts';

const definedRules: readonly AlertRule[] = [
  clusterLeaderless,
  noControllerHealthy,
  clusterReadOnly,
  quorumLost,
  peerFlapping,
  leadershipChurn,
  rateLimiterQueueSustained,
  rateLimiterWindowShrinking,
  peerLatencyJump,
  commitLagHigh,
  raftDiskGrowth,
  scrapeTargetDown,
  alertDeliveryFailing,
  circuitDialFailures,
  sdkTerminatorsGone,
  oidcRefreshFailures,
  backupsStopped,
  backupsFailing,
];

export interface CataloguedRule {
  readonly rule: AlertRule;
  readonly definition: AlertDefinition;
}

/** The catalogue's alerts that Prometheus raises. */
export function prometheusAlerts(): AlertDefinition[] {
  return alertCatalogue.filter((alert) => (alert.sources as readonly string[]).includes('prometheus'));
}

/** Each rule with its catalogue entry, in catalogue order; throws when the two disagree. */
export function alertRules(): CataloguedRule[] {
  const problems: string[] = [];
  const wanted = prometheusAlerts();
  for (const rule of definedRules) {
    if (definedRules.filter((other) => other.name === rule.name).length > 1) problems.push(`${rule.name} has more than one rule`);
    if (!wanted.some((alert) => alert.name === rule.name)) problems.push(`${rule.name} has a rule, but the catalogue does not list 'prometheus' among its sources`);
    if (!rule.tests.some((test) => test.checks.some((check) => check.firing.length > 0))) problems.push(`${rule.name} has no test in which it fires`);
    if (!rule.tests.some((test) => test.checks.some((check) => check.firing.length === 0))) problems.push(`${rule.name} has no test in which it must stay silent`);
  }
  const rules: CataloguedRule[] = [];
  for (const definition of wanted) {
    const rule = definedRules.find((candidate) => candidate.name === definition.name);
    if (rule) rules.push({ rule, definition });
    else problems.push(`${definition.name} lists 'prometheus' among its sources, but has no rule`);
  }
  if (problems.length > 0) throw new Error(`the alert rules and the catalogue disagree:\n  ${[...new Set(problems)].join('\n  ')}`);
  return rules;
}
