import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AlertInstance } from '../evaluator/alert-change.ts';
import { DeliveryQueue } from './delivery-queue.ts';
import type { DeliverySettings } from './delivery-queue.ts';

const t0 = Date.UTC(2026, 0, 1);
const am1 = 'http://am1:9093';
const am2 = 'http://am2:9093';
const settings: DeliverySettings = { urls: [am1, am2], resendInterval: 60_000, retryInitialBackoff: 500, retryMaxBackoff: 4000, resolvedRetention: 3_600_000 };

const instance: AlertInstance = { alert: 'EdgewardClusterReadOnly', labels: { controller: 'ctrl1' }, startsAt: t0, detail: 'ctrl1: event state.ro.' };
const labels = { alertname: 'EdgewardClusterReadOnly', severity: 'critical', cluster: 'c', controller: 'ctrl1' };
const annotations = { summary: 's', description: 'd', runbook_url: 'r' };

function firingQueue(): DeliveryQueue {
  const queue = new DeliveryQueue(settings);
  queue.fire(instance, labels, annotations);
  return queue;
}

describe('DeliveryQueue', () => {
  it('owes a new alert to every Alertmanager at once, with endsAt four resend intervals ahead', () => {
    const queue = firingQueue();
    for (const url of [am1, am2]) {
      const batch = queue.due(url, t0 + 5);
      assert.deepEqual(batch?.alerts, [{ labels, annotations, startsAt: new Date(t0).toISOString(), endsAt: new Date(t0 + 5 + 240_000).toISOString() }]);
    }
    assert.equal(queue.nextDue(t0 + 5), t0 + 5);
    assert.equal(queue.waiting(), 1);
  });

  it('re-sends a firing alert every resendInterval after it was accepted, not before', () => {
    const queue = firingQueue();
    queue.accepted(queue.due(am1, t0)!, t0);
    queue.accepted(queue.due(am2, t0)!, t0);
    assert.equal(queue.waiting(), 0);
    assert.equal(queue.due(am1, t0 + 59_999), undefined);
    assert.equal(queue.nextDue(t0 + 1000), t0 + 60_000);
    const resend = queue.due(am1, t0 + 60_000);
    assert.equal(resend?.alerts[0]?.endsAt, new Date(t0 + 60_000 + 240_000).toISOString());
    assert.equal(resend?.alerts[0]?.startsAt, new Date(t0).toISOString());
  });

  it('owes a resolve at once, with endsAt the resolve time, and forgets the alert once every Alertmanager took it', () => {
    const queue = firingQueue();
    queue.accepted(queue.due(am1, t0)!, t0);
    queue.accepted(queue.due(am2, t0)!, t0);
    queue.resolve(instance, t0 + 30_000, labels, annotations);
    const batch = queue.due(am1, t0 + 30_001);
    assert.equal(batch?.alerts[0]?.endsAt, new Date(t0 + 30_000).toISOString());
    queue.accepted(batch!, t0 + 30_002);
    assert.equal(queue.waiting(), 1, 'am2 has not taken the resolve yet');
    assert.equal(queue.due(am1, t0 + 200_000), undefined, 'a resolved alert is not re-sent');
    queue.accepted(queue.due(am2, t0 + 30_003)!, t0 + 30_003);
    assert.equal(queue.waiting(), 0);
    assert.equal(queue.snapshot().alerts.length, 0);
    assert.equal(queue.nextDue(t0 + 40_000), undefined);
  });

  it('backs off one failing Alertmanager exponentially up to the maximum, keeping everything owed to it', () => {
    const queue = firingQueue();
    queue.accepted(queue.due(am2, t0)!, t0);
    const delays = [1, 2, 3, 4, 5].map((attempt) => queue.failed(am1, t0 + attempt));
    assert.deepEqual(delays, [500, 1000, 2000, 4000, 4000]);
    assert.equal(queue.due(am1, t0 + 5 + 3999), undefined, 'in backoff');
    assert.equal(queue.nextDue(t0 + 10), t0 + 5 + 4000);
    queue.resolve(instance, t0 + 6, labels, annotations);
    const batch = queue.due(am1, t0 + 5 + 4000);
    assert.equal(batch?.alerts.length, 1);
    assert.equal(batch?.alerts[0]?.endsAt, new Date(t0 + 6).toISOString());
    queue.accepted(batch!, t0 + 5000);
    assert.equal(queue.snapshot().targets[am1]?.failures, 0, 'success clears the backoff');
  });

  it('sends a resolve and the next firing of the same alert as two alerts, oldest first', () => {
    const queue = firingQueue();
    queue.resolve(instance, t0 + 1000, labels, annotations);
    queue.fire({ ...instance, startsAt: t0 + 2000 }, labels, annotations);
    const batch = queue.due(am1, t0 + 3000);
    assert.deepEqual(
      batch?.alerts.map((alert) => [alert.startsAt, alert.endsAt]),
      [
        [new Date(t0).toISOString(), new Date(t0 + 1000).toISOString()],
        [new Date(t0 + 2000).toISOString(), new Date(t0 + 3000 + 240_000).toISOString()],
      ],
    );
  });

  it('does not queue an alert that is already firing twice', () => {
    const queue = firingQueue();
    queue.fire(instance, labels, annotations);
    assert.equal(queue.due(am1, t0)?.alerts.length, 1);
  });

  it('continues from a snapshot: what was accepted is not sent again, what was not still is', () => {
    const queue = firingQueue();
    queue.accepted(queue.due(am1, t0)!, t0);
    const restarted = new DeliveryQueue(settings, JSON.parse(JSON.stringify(queue.snapshot())));
    assert.equal(restarted.due(am1, t0 + 1000), undefined);
    assert.equal(restarted.due(am2, t0 + 1000)?.alerts[0]?.startsAt, new Date(t0).toISOString());
    assert.equal(restarted.due(am1, t0 + 60_000)?.alerts.length, 1);
  });

  it('forgets an Alertmanager no longer configured, and owes everything to a new one', () => {
    const queue = firingQueue();
    queue.accepted(queue.due(am1, t0)!, t0);
    queue.accepted(queue.due(am2, t0)!, t0);
    queue.resolve(instance, t0 + 1, labels, annotations);
    queue.accepted(queue.due(am1, t0 + 2)!, t0 + 2);
    const am3 = 'http://am3:9093';
    const restarted = new DeliveryQueue({ ...settings, urls: [am1, am3] }, queue.snapshot());
    assert.equal(restarted.due(am3, t0 + 3)?.alerts.length, 1, 'the resolve is owed to the new Alertmanager');
    assert.equal(restarted.snapshot().targets[am2], undefined);
  });

  it('drops a resolved alert nobody accepted once resolvedRetention has passed', () => {
    const queue = firingQueue();
    queue.resolve(instance, t0 + 1000, labels, annotations);
    assert.equal(queue.expire(t0 + 1000 + 3_600_000), 0);
    assert.equal(queue.expire(t0 + 1001 + 3_600_000), 1);
    assert.equal(queue.waiting(), 0);
  });

  it('never drops a firing alert, however long it waits', () => {
    const queue = firingQueue();
    assert.equal(queue.expire(t0 + 365 * 86_400_000), 0);
    assert.equal(queue.waiting(), 1);
  });
});
