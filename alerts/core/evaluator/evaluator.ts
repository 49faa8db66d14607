// The alerts daemon's pure core, in the manner of the raft core: stepped with observations (matched log lines,
// cluster and entity change events, health and metric poll results, ticks), it hands back the alert changes they
// cause. The clock comes in with each observation; there is no I/O and no timer here. Its whole state is plain
// data (`snapshot()`), persisted by the daemon and handed back on restart (without its poll results, which are
// stale by then).

import { eventRuleFor, logRule } from '../rules/alert-rules.ts';
import { AlertBook } from './alert-book.ts';
import type { AlertChange } from './alert-change.ts';
import { commitLag, evaluateCommitLag, noteEntityChange } from './commit-lag.ts';
import { forgetUnconfigured } from './configured-controllers.ts';
import type { CommitLag } from './commit-lag.ts';
import { emptyEvaluatorState, withoutPollResults } from './evaluator-state.ts';
import type { EvaluatorState, FiringAlert } from './evaluator-state.ts';
import { evaluatePeerLatency } from './latency-jump.ts';
import type { Observation } from './observations.ts';
import { dropStaleMetrics, evaluateNoHealthy, evaluateQuorum, noteHealth, noteMetrics } from './poll-rules.ts';
import { applyEffect, expireLeaderlessTolerance, expireOneShots, expireReadOnlyHold, notePreferredPeers, slideWindows } from './record-rules.ts';
import { recordTime } from './rule-context.ts';
import type { RuleContext } from './rule-context.ts';
import type { EvaluatorSettings } from './rule-settings.ts';

export class Evaluator {
  private readonly state: EvaluatorState;

  constructor(
    private readonly settings: EvaluatorSettings,
    state?: EvaluatorState,
  ) {
    this.state = state ? withoutPollResults(structuredClone(state)) : emptyEvaluatorState();
  }

  step(observation: Observation): AlertChange[] {
    const book = new AlertBook(this.state.firing);
    const ctx: RuleContext = { state: this.state, settings: this.settings, book, now: observation.now };
    switch (observation.kind) {
      case 'log': {
        const rule = logRule(observation.rule);
        applyEffect(ctx, rule.effect, {
          controller: observation.controller,
          at: recordTime(observation.at, observation.now),
          source: 'log',
          what: `log line "${observation.line ?? rule.conditions[0]!.msg}"`,
          ...(observation.peerId === undefined ? {} : { peerId: observation.peerId }),
        });
        break;
      }
      case 'cluster-event': {
        notePreferredPeers(ctx, observation.eventType, observation.peers);
        const rule = eventRuleFor(observation.eventType);
        if (!rule) break;
        const peerId = observation.peers[0]?.id;
        applyEffect(ctx, rule.effect, {
          controller: observation.controller,
          at: recordTime(observation.at, observation.now),
          source: 'event',
          what: `event ${observation.eventType}`,
          ...(peerId === undefined ? {} : { peerId }),
        });
        break;
      }
      case 'entity-change':
        if (this.settings.commitLagControllers.includes(observation.controller)) {
          noteEntityChange(ctx, observation.controller, observation.raftIndex, recordTime(observation.at, observation.now));
        }
        break;
      case 'health':
        noteHealth(ctx, observation.controller, observation.status);
        break;
      case 'metrics':
        if (observation.view) {
          noteMetrics(ctx, observation.controller, observation.view);
          evaluatePeerLatency(ctx, observation.controller, observation.view.peerLatency);
        }
        break;
      case 'tick':
        forgetUnconfigured(ctx);
        expireLeaderlessTolerance(ctx);
        expireReadOnlyHold(ctx);
        expireOneShots(ctx);
        slideWindows(ctx);
        evaluateNoHealthy(ctx);
        dropStaleMetrics(ctx);
        evaluateQuorum(ctx);
        evaluateCommitLag(ctx);
        break;
    }
    return book.changes;
  }

  /** A copy of the whole state, to persist. */
  snapshot(): EvaluatorState {
    return structuredClone(this.state);
  }

  firing(): FiringAlert[] {
    return Object.values(this.state.firing).map((instance) => structuredClone(instance));
  }

  commitLag(now: number): Record<string, CommitLag> {
    return commitLag({ state: this.state, settings: this.settings, now });
  }
}
