// The firing instances and the changes one step makes to them. Firing an instance that already fires, or
// resolving one that does not, changes nothing: every rule can say what it sees on every step.

import type { AlertName } from '../../catalogue/alert-catalogue.ts';
import { instanceKey } from './alert-change.ts';
import type { AlertChange } from './alert-change.ts';
import type { FiringAlert } from './evaluator-state.ts';

export class AlertBook {
  readonly changes: AlertChange[] = [];

  constructor(private readonly firing: Record<string, FiringAlert>) {}

  isFiring(alert: AlertName, labels: Readonly<Record<string, string>>): boolean {
    return Object.hasOwn(this.firing, instanceKey(alert, labels));
  }

  fire(alert: AlertName, labels: Readonly<Record<string, string>>, startsAt: number, detail: string, value?: number): void {
    const key = instanceKey(alert, labels);
    if (Object.hasOwn(this.firing, key)) return;
    const instance: FiringAlert = { alert, labels: { ...labels }, startsAt, detail, ...(value === undefined ? {} : { value }) };
    this.firing[key] = instance;
    this.changes.push({ change: 'firing', ...instance });
  }

  resolve(alert: AlertName, labels: Readonly<Record<string, string>>, endsAt: number): void {
    const key = instanceKey(alert, labels);
    const instance = this.firing[key];
    if (!instance) return;
    delete this.firing[key];
    this.changes.push({ change: 'resolved', ...instance, endsAt: Math.max(endsAt, instance.startsAt) });
  }

  /** Every firing instance of `alert` whose labels include `match`. */
  instancesOf(alert: AlertName, match: Readonly<Record<string, string>> = {}): FiringAlert[] {
    return Object.values(this.firing).filter(
      (instance) => instance.alert === alert && Object.entries(match).every(([name, value]) => instance.labels[name] === value),
    );
  }
}
