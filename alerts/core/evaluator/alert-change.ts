// What the evaluator hands back: an alert instance started or ended. An instance is the alert's name plus its
// labels (`controller`, and `peer_id` or `channel_id` where the alert is about one peer).

import type { AlertName } from '../../catalogue/alert-catalogue.ts';

export interface AlertInstance {
  readonly alert: AlertName;
  /** Instance labels beyond alertname, severity and cluster: always `controller`. */
  readonly labels: Readonly<Record<string, string>>;
  readonly startsAt: number;
  /** The measured value, where there is one (connected voters, lag, round trip, count in the window). */
  readonly value?: number;
  /** One sentence about this instance, for the description annotation. */
  readonly detail: string;
}

export type AlertChange =
  | ({ readonly change: 'firing' } & AlertInstance)
  | ({ readonly change: 'resolved'; readonly endsAt: number } & AlertInstance);

/** A stable key for an instance: `Name{a="x",b="y"}` with labels sorted. */
export function instanceKey(alert: string, labels: Readonly<Record<string, string>>): string {
  const parts = Object.keys(labels)
    .sort()
    .map((name) => `${name}=${JSON.stringify(labels[name])}`);
  return `${alert}{${parts.join(',')}}`;
}
