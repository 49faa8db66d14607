import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { alertCatalogue } from '../../catalogue/alert-catalogue.ts';
import { daemonAlerts, eventRules, logRules } from '../rules/alert-rules.ts';
import { Evaluator } from './evaluator.ts';
import type { EvaluatorSettings } from './rule-settings.ts';
import { defaultRuleSettings } from './scenario-runner.ts';

const t0 = Date.UTC(2026, 0, 1);
const settings: EvaluatorSettings = {
  controllers: ['ctrl1', 'ctrl2'],
  commitLagControllers: ['ctrl1', 'ctrl2'],
  preferredLeaders: [],
  rules: defaultRuleSettings({ leaderlessTolerance: '30s', readOnlyFor: '0s', noHealthyFor: '30s' }),
};

describe('Evaluator', () => {
  it('resumes from a snapshot that went through JSON: a pending page still fires, with its original times', () => {
    const before = new Evaluator(settings);
    before.step({ kind: 'cluster-event', now: t0, controller: 'ctrl1', eventType: 'state.is_leaderless', at: t0, peers: [] });
    before.step({ kind: 'log', now: t0, controller: 'ctrl2', rule: 'raft-node-failed', at: t0 });
    const after = new Evaluator(settings, JSON.parse(JSON.stringify(before.snapshot())));
    assert.deepEqual(after.firing(), before.firing());
    const changes = after.step({ kind: 'tick', now: t0 + 30_000 });
    assert.deepEqual(
      changes.map((change) => [change.change, change.alert, change.startsAt]),
      [['firing', 'EdgewardClusterLeaderless', t0 + 30_000]],
    );
    // The one-shot resolves on the old schedule, from its original match.
    const later = after.step({ kind: 'tick', now: t0 + 15 * 60_000 });
    assert.deepEqual(
      later.map((change) => [change.change, change.alert, change.change === 'resolved' ? change.endsAt : undefined]),
      [['resolved', 'EdgewardRaftNodeFailed', t0 + 15 * 60_000]],
    );
  });

  it('starts the windows over polls again after a restart: poll results from before it do not page', () => {
    const before = new Evaluator(settings);
    before.step({ kind: 'health', now: t0, controller: 'ctrl1', status: 429 });
    before.step({ kind: 'health', now: t0, controller: 'ctrl2', status: 429 });
    before.step({ kind: 'tick', now: t0 + 20_000 });
    const after = new Evaluator(settings, before.snapshot());
    assert.deepEqual(after.step({ kind: 'tick', now: t0 + 3_600_000 }), []);
    assert.deepEqual(after.step({ kind: 'health', now: t0 + 3_600_000, controller: 'ctrl1', status: 429 }), []);
    const paged = after.step({ kind: 'health', now: t0 + 3_630_000, controller: 'ctrl1', status: 429 });
    assert.deepEqual(paged.map((change) => [change.alert, change.startsAt]), [['EdgewardNoControllerHealthy', t0 + 3_630_000]]);
  });

  it('does not share state with the snapshot it was given or hands out', () => {
    const evaluator = new Evaluator(settings);
    const snapshot = evaluator.snapshot();
    evaluator.step({ kind: 'log', now: t0, controller: 'ctrl1', rule: 'raft-node-failed', at: t0 });
    assert.deepEqual(snapshot.firing, {});
  });

  it('refuses a log rule it does not know (a bug in the caller)', () => {
    assert.throws(() => new Evaluator(settings).step({ kind: 'log', now: t0, controller: 'ctrl1', rule: 'no-such-rule' }), /no log rule/);
  });

  it('resolves the alerts of a controller the config no longer names, and forgets it', () => {
    const before = new Evaluator(settings);
    before.step({ kind: 'log', now: t0, controller: 'ctrl2', rule: 'raft-node-failed', at: t0 });
    before.step({ kind: 'cluster-event', now: t0, controller: 'ctrl2', eventType: 'state.ro', at: t0, peers: [] });
    before.step({ kind: 'entity-change', now: t0, controller: 'ctrl2', raftIndex: 5, at: t0 });
    const after = new Evaluator({ ...settings, controllers: ['ctrl1'], commitLagControllers: ['ctrl1'] }, before.snapshot());
    const changes = after.step({ kind: 'tick', now: t0 + 1000 });
    assert.deepEqual(
      changes.map((change) => `${change.change} ${change.alert} ${change.labels.controller}`).sort(),
      ['resolved EdgewardClusterReadOnly ctrl2', 'resolved EdgewardRaftNodeFailed ctrl2'],
    );
    const state = after.snapshot();
    assert.deepEqual([state.readOnly, state.oneShot], [{}, {}]);
    assert.deepEqual(Object.keys(state.commitLag), ['ctrl1']);
  });

  it('ignores cluster events it has no rule for', () => {
    assert.deepEqual(new Evaluator(settings).step({ kind: 'cluster-event', now: t0, controller: 'ctrl1', eventType: 'peer.not_member', peers: [] }), []);
  });
});

describe('the rules', () => {
  it('raise exactly the catalogue alerts whose sources include the daemon', () => {
    const fromCatalogue = alertCatalogue.filter((alert) => (alert.sources as readonly string[]).includes('daemon')).map((alert) => alert.name);
    assert.deepEqual([...daemonAlerts].sort(), [...fromCatalogue].sort());
  });

  it('have distinct ids', () => {
    const ids = [...logRules, ...eventRules].map((rule) => rule.id);
    assert.equal(new Set(ids).size, ids.length);
  });
});
