// What the evaluator is stepped with: records read from the files, poll results and ticks. Each carries `now`,
// the driver's clock when it was handed over; `at` is the record's own time (the line's `time`, the event's
// `timestamp`) when it has one.

import type { ControllerMetricsView } from '../metrics/controller-metrics-view.ts';
import type { EventPeer } from '../matching/event-line.ts';

export type HealthStatus = number | 'unreachable';

export type Observation =
  | {
      readonly kind: 'log';
      readonly now: number;
      readonly controller: string;
      /** A log rule's id (alert-rules.ts). */
      readonly rule: string;
      readonly at?: number;
      readonly peerId?: string;
      /** The documented text of the rule condition the line met, for the description (never the line's own text). */
      readonly line?: string;
    }
  | {
      readonly kind: 'cluster-event';
      readonly now: number;
      readonly controller: string;
      readonly eventType: string;
      readonly at?: number;
      readonly peers: readonly EventPeer[];
    }
  | { readonly kind: 'entity-change'; readonly now: number; readonly controller: string; readonly raftIndex: number; readonly at?: number }
  | { readonly kind: 'health'; readonly now: number; readonly controller: string; readonly status: HealthStatus }
  /** `view` undefined: the poll failed. */
  | { readonly kind: 'metrics'; readonly now: number; readonly controller: string; readonly view?: ControllerMetricsView }
  | { readonly kind: 'tick'; readonly now: number };
