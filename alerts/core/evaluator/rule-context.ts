// What every rule family works with during one step.

import { formatDuration } from '../../../common/config/go-duration.ts';
import type { AlertBook } from './alert-book.ts';
import type { EvaluatorState } from './evaluator-state.ts';
import type { EvaluatorSettings } from './rule-settings.ts';

export interface RuleContext {
  readonly state: EvaluatorState;
  readonly settings: EvaluatorSettings;
  readonly book: AlertBook;
  /** The driver's clock for this step. */
  readonly now: number;
}

/** The `controller` label of cluster-wide alerts. */
export { clusterScopeController } from '../../catalogue/alert-catalogue.ts';

/** A record's time, or now when it has none; never later than now (a controller clock ahead of ours). */
export function recordTime(at: number | undefined, now: number): number {
  return at === undefined ? now : Math.min(at, now);
}

/** Go-like duration text, to the millisecond from a second up and to the microsecond below. */
export function formatMs(ms: number): string {
  return formatDuration(ms >= 1000 ? Math.round(ms) : Math.round(ms * 1000) / 1000);
}
