// Where the file consumers and pollers put what they read: observations for the evaluator, and counts for the
// daemon's metrics.

import type { Observation } from '../core/evaluator/observations.ts';
import type { FileKind } from './daemon-metrics.ts';

export interface RecordSink {
  now(): number;
  observe(observation: Observation): void;
  lines(kind: FileKind, count: number): void;
  matched(rule: string, count?: number): void;
  skipped(kind: FileKind, reason: string, count?: number): void;
}
