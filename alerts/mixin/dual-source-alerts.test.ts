// Every alert both the alerts daemon and Prometheus raise (the catalogue's `sources`) must fire on the same
// thresholds and windows from either. The numbers are read back from what each source really uses: the generated
// rules' expressions and `for:`, and the daemon's rules as a config file without a `rules:` section parses. A
// dual-source alert without a comparison here fails too, so a new one cannot slip in with two definitions.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseGoDuration } from '../../common/config/go-duration.ts';
import { alertCatalogue, type AlertName } from '../catalogue/alert-catalogue.ts';
import { parseAlertsConfig, type RulesConfig } from '../config/alerts-config.ts';
import { alertRules } from '../rules/alert-rules.ts';
import { recordingRules } from '../rules/recording-rules.ts';
import type { AlertRule } from '../rules/rule-model.ts';

type Figures = Record<string, number>;
interface Comparison {
  readonly prometheus: (rule: AlertRule) => Figures;
  readonly daemon: (rules: RulesConfig) => Figures;
}

function ms(duration: string): number {
  const value = parseGoDuration(duration);
  if (value === undefined) throw new Error(`not a duration: ${duration}`);
  return value;
}

function captured(text: string, pattern: RegExp, what: string): string {
  const match = pattern.exec(text);
  if (!match?.[1]) throw new Error(`${what}: ${pattern} finds nothing in:\n${text}`);
  return match[1];
}

/** The range of the recording rule the alert reads (`edgeward:peer_disconnects:increase10m` → its `[10m]`). */
function recordedWindow(rule: AlertRule): number {
  const recorded = recordingRules.find((recording) => new RegExp(`${recording.record.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`).test(rule.expr));
  if (!recorded) throw new Error(`${rule.name} reads no recording rule`);
  return ms(captured(recorded.expr, /\[(\w+)\]/, recorded.record));
}

const hold = (rule: AlertRule): Figures => ({ holdMs: ms(rule.for) });
const threshold = (rule: AlertRule): number => Number(captured(rule.expr, />=\s*(\d+)\s*$/, rule.name));

const comparisons: Partial<Record<AlertName, Comparison>> = {
  EdgewardClusterLeaderless: { prometheus: hold, daemon: (rules) => ({ holdMs: rules.leaderlessTolerance }) },
  EdgewardNoControllerHealthy: { prometheus: hold, daemon: (rules) => ({ holdMs: rules.noHealthyFor }) },
  EdgewardClusterReadOnly: { prometheus: hold, daemon: (rules) => ({ holdMs: rules.readOnlyFor }) },
  EdgewardQuorumLost: { prometheus: hold, daemon: (rules) => ({ holdMs: rules.quorumLostFor }) },
  EdgewardPeerFlapping: {
    prometheus: (rule) => ({ count: threshold(rule), windowMs: recordedWindow(rule) }),
    daemon: (rules) => ({ count: rules.peerFlapping.count, windowMs: rules.peerFlapping.window }),
  },
  EdgewardLeadershipChurn: {
    prometheus: (rule) => ({ count: threshold(rule), windowMs: recordedWindow(rule) }),
    daemon: (rules) => ({ count: rules.leadershipChurn.count, windowMs: rules.leadershipChurn.window }),
  },
  EdgewardRateLimiterQueueSustained: {
    // No scrape found the queue empty in the `min_over_time` range, held for `for:`.
    prometheus: (rule) => ({ sustainedMs: ms(captured(rule.expr, /min_over_time\([^[]*\[(\w+)\]/, rule.name)) + ms(rule.for) }),
    daemon: (rules) => ({ sustainedMs: rules.queueSustainedFor }),
  },
  EdgewardRateLimiterWindowShrinking: { prometheus: hold, daemon: (rules) => ({ holdMs: rules.windowShrinkingFor }) },
  EdgewardPeerLatencyJump: {
    // The p99 of a quantile window stays high for that window after the round trips recover: `for:` minus it is
    // how long they were slow.
    prometheus: (rule) => ({
      factor: Number(captured(rule.expr, />\s*([\d.]+)\s*\*\s*avg_over_time/, rule.name)),
      floorMs: Number(captured(rule.expr, /^\S+\s*>\s*([\d.]+)\s*$/m, rule.name)) * 1000,
      slowForMs: ms(rule.for) - recordedWindow(rule),
    }),
    daemon: (rules) => ({ factor: rules.peerLatency.factor, floorMs: rules.peerLatency.floor, slowForMs: rules.peerLatency.sustainedFor }),
  },
  EdgewardCommitLagHigh: {
    prometheus: (rule) => ({ behindMs: ms(captured(rule.expr, /offset (\w+)\)/, rule.name)), holdMs: ms(rule.for) }),
    daemon: (rules) => ({ behindMs: rules.commitLag.behindFor, holdMs: rules.commitLag.sustainedFor }),
  },
};

function daemonDefaults(): RulesConfig {
  const text = ['cluster: c', 'controllers:', '  - id: ctrl1', '    logFile: /var/log/ctrl1.log', 'alertmanager:', '  urls: [http://127.0.0.1:9093]', 'stateDir: /tmp/s'].join('\n');
  const { config, problems } = parseAlertsConfig(text, { file: '/etc/edgeward/alerts.yml', env: {} });
  assert.ok(config, JSON.stringify(problems));
  return config.rules;
}

const dualSource = alertCatalogue.filter((alert) => alert.sources.length === 2).map((alert) => alert.name);

test('every alert both the daemon and Prometheus raise has a comparison of its thresholds and windows', () => {
  assert.ok(dualSource.length >= 10, `dual-source alerts: ${dualSource.join(', ')}`);
  assert.deepEqual(dualSource.filter((name) => !comparisons[name]), [], 'dual-source alerts with no comparison here');
  assert.deepEqual(Object.keys(comparisons).filter((name) => !(dualSource as readonly string[]).includes(name)), [], 'comparisons of alerts one source raises');
});

test('the daemon\'s defaults and the generated Prometheus rules use the same thresholds and windows for each dual-source alert', () => {
  const rules = daemonDefaults();
  const byName = new Map(alertRules().map(({ rule }) => [rule.name, rule]));
  const differences: string[] = [];
  for (const name of dualSource) {
    const rule = byName.get(name);
    assert.ok(rule, `${name} has no Prometheus rule`);
    const comparison = comparisons[name]!;
    const fromRule = comparison.prometheus(rule);
    const fromDaemon = comparison.daemon(rules);
    if (JSON.stringify(fromRule) !== JSON.stringify(fromDaemon)) differences.push(`${name}: Prometheus ${JSON.stringify(fromRule)}, daemon ${JSON.stringify(fromDaemon)}`);
  }
  assert.deepEqual(differences, []);
});
