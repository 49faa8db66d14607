import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createMemoryLogger } from '../../common/log/logger.ts';
import { systemClock } from '../../common/time/clock.ts';
import { FakeAlertmanager } from '../../test/support/fake-alertmanager.ts';
import { DeliveryQueue } from '../core/delivery/delivery-queue.ts';
import type { DeliverySettings } from '../core/delivery/delivery-queue.ts';
import type { AlertInstance } from '../core/evaluator/alert-change.ts';
import { AlertDelivery, alertsEndpoint } from './alert-delivery.ts';
import { DaemonMetrics } from './daemon-metrics.ts';

const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

function instance(controller: string, startsAt: number): AlertInstance {
  return { alert: 'EdgewardClusterReadOnly', labels: { controller }, startsAt, detail: `${controller}: event state.ro.` };
}
const labelsOf = (alert: AlertInstance) => ({ alertname: alert.alert, severity: 'critical', cluster: 'test', ...alert.labels });
const annotations = { summary: 's', description: 'd', runbook_url: 'docs/runbooks.md#edgewardclusterreadonly' };

async function setup(urls: string[], overrides: Partial<DeliverySettings> = {}) {
  const queue = new DeliveryQueue({ urls, resendInterval: 60_000, retryInitialBackoff: 100, retryMaxBackoff: 1000, resolvedRetention: 3_600_000, ...overrides });
  const metrics = new DaemonMetrics({ defaultMetrics: false });
  const logger = createMemoryLogger();
  const delivery = new AlertDelivery(queue, { urls, timeout: 2000 }, { clock: systemClock, logger, metrics });
  cleanups.push(() => delivery.stop());
  const fire = (alert: AlertInstance) => {
    queue.fire(alert, labelsOf(alert), annotations);
    delivery.kick();
  };
  const resolve = (alert: AlertInstance, endsAt: number) => {
    queue.resolve(alert, endsAt, labelsOf(alert), annotations);
    delivery.kick();
  };
  return { queue, metrics, logger, delivery, fire, resolve };
}

async function alertmanager(): Promise<FakeAlertmanager> {
  const am = new FakeAlertmanager();
  await am.start();
  cleanups.push(() => am.stop());
  return am;
}

async function metricValue(metrics: DaemonMetrics, line: string): Promise<number> {
  const found = (await metrics.exposition()).split('\n').find((candidate) => candidate.startsWith(`${line} `));
  return found === undefined ? Number.NaN : Number(found.slice(line.length + 1));
}

/** The fake Alertmanager records a POST before the daemon has read the answer: waits (bounded) for the daemon's side. */
async function settled(done: () => boolean | Promise<boolean>, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('AlertDelivery', () => {
  it('posts a new alert at once, with labels, annotations and an endsAt in the future; then the resolve with its end time', async () => {
    const am = await alertmanager();
    const { fire, resolve } = await setup([am.url]);
    const startsAt = Date.now();
    const alert = instance('ctrl1', startsAt);
    fire(alert);
    await am.waitFor((posts) => posts.length === 1, 2000);
    const [sent] = am.posts[0]!.alerts;
    assert.ok(am.posts[0]!.at - startsAt < 500, 'delivered at once, not on a timer');
    assert.deepEqual(sent?.labels, { alertname: 'EdgewardClusterReadOnly', severity: 'critical', cluster: 'test', controller: 'ctrl1' });
    assert.deepEqual(sent?.annotations, annotations);
    assert.equal(sent?.startsAt, new Date(startsAt).toISOString());
    assert.ok(Date.parse(sent!.endsAt!) >= startsAt + 4 * 60_000, 'endsAt a few resend intervals ahead');
    resolve(alert, startsAt + 5);
    await am.waitFor((posts) => posts.length === 2, 2000);
    assert.equal(am.posts[1]!.alerts[0]?.endsAt, new Date(startsAt + 5).toISOString());
  });

  it('re-sends a firing alert every resendInterval, with the same startsAt', async () => {
    const am = await alertmanager();
    const { fire } = await setup([am.url], { resendInterval: 300 });
    const alert = instance('ctrl1', Date.now());
    fire(alert);
    await am.waitFor((posts) => posts.length >= 3, 3000, 'three sends');
    const gaps = am.posts.slice(1).map((post, index) => post.at - am.posts[index]!.at);
    assert.ok(gaps.every((gap) => gap >= 280), `re-sent every 300 ms, not sooner: ${gaps}`);
    assert.ok(am.posts.every((post) => post.alerts[0]?.startsAt === new Date(alert.startsAt).toISOString()));
  });

  it('retries with exponential backoff while Alertmanager answers 500, and delivers once it accepts', async () => {
    const am = await alertmanager();
    am.status = 500;
    const { fire, metrics, logger } = await setup([am.url]);
    fire(instance('ctrl1', Date.now()));
    await am.waitFor((posts) => posts.length >= 4, 5000, 'four attempts');
    am.status = 200;
    await am.waitFor((posts) => posts.some((post) => post.status === 200), 5000, 'an accepted POST');
    const gaps = am.posts.slice(1, 4).map((post, index) => post.at - am.posts[index]!.at);
    assert.ok(gaps[0]! >= 90 && gaps[1]! >= 190 && gaps[2]! >= 390, `backoff 100, 200, 400 ms: ${gaps}`);
    assert.equal(am.accepted.length, 1);
    assert.ok((await metricValue(metrics, 'edgeward_alerts_deliveries_failed_total')) >= 4);
    await settled(async () => (await metricValue(metrics, 'edgeward_alerts_deliveries_total{result="accepted"}')) === 1);
    assert.equal(await metricValue(metrics, 'edgeward_alerts_deliveries_total{result="accepted"}'), 1);
    assert.equal(await metricValue(metrics, 'edgeward_alerts_delivery_queue'), 0);
    assert.match(String(logger.lines.find((line) => line.msg === 'alert delivery failed; retrying')?.error), /HTTP 500/);
  });

  it('loses nothing while Alertmanager is down: what fired and resolved meanwhile arrives once it is back', async () => {
    const am = await alertmanager();
    const port = Number(new URL(am.url).port);
    await am.stop();
    const { fire, resolve, queue } = await setup([am.url]);
    const now = Date.now();
    const flap = instance('ctrl1', now);
    fire(flap);
    fire(instance('ctrl2', now + 1));
    resolve(flap, now + 2);
    await new Promise((done) => setTimeout(done, 500));
    assert.equal(queue.waiting(), 2);
    await am.start(port);
    await am.waitFor((posts) => posts.flatMap((post) => post.alerts).length >= 2, 5000, 'both alerts');
    const received = am.accepted.map((alert) => [alert.labels.controller, alert.endsAt === new Date(now + 2).toISOString() ? 'resolved' : 'firing']);
    assert.deepEqual(received, [
      ['ctrl1', 'resolved'],
      ['ctrl2', 'firing'],
    ]);
    await settled(() => queue.waiting() === 0);
    assert.equal(queue.waiting(), 0);
  });

  it('sends to every Alertmanager; one that is down does not hold back the others', async () => {
    const up = await alertmanager();
    const down = await alertmanager();
    const downPort = Number(new URL(down.url).port);
    await down.stop();
    const { fire } = await setup([down.url, up.url]);
    fire(instance('ctrl1', Date.now()));
    await up.waitFor((posts) => posts.length === 1, 2000);
    await down.start(downPort);
    await down.waitFor((posts) => posts.length === 1, 5000);
  });

  it('posts to <url>/api/v2/alerts whether or not the URL ends with a slash or has a path', () => {
    assert.equal(alertsEndpoint('http://am:9093'), 'http://am:9093/api/v2/alerts');
    assert.equal(alertsEndpoint('http://am:9093/'), 'http://am:9093/api/v2/alerts');
    assert.equal(alertsEndpoint('https://proxy/alertmanager'), 'https://proxy/alertmanager/api/v2/alerts');
  });
});
