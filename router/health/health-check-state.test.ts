import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../common/time/clock.ts';
import type { HealthChecksConfig } from '../config/router-config.ts';
import { CheckState, controllerPingFailure, didNotRunYet, formatGoDuration, healthReport, linkCountFailure } from './health-check-state.ts';
import { HealthCheckRunner, routerCheckDefinitions } from './router-health-checks.ts';

const t0 = Date.UTC(2026, 0, 1, 12, 0, 0);

describe('router health check state', () => {
  it('starts failing with "didn\'t run yet", without details', () => {
    const check = new CheckState('controllerPing', false, t0);
    assert.deepEqual(check.view(false), {
      id: 'controllerPing',
      healthy: false,
      lastCheckDuration: '0s',
      lastCheckTime: null,
      err: { message: didNotRunYet },
      consecutiveFailures: 0,
      failingSince: '2026-01-01T12:00:00Z',
    });
  });

  it('passes after a good run, with details null when the check has none', () => {
    const check = new CheckState('controllerPing', false, t0);
    check.record({ ok: true, at: t0 + 1500, durationMs: 1.2 });
    assert.deepEqual(check.view(false), { id: 'controllerPing', healthy: true, lastCheckDuration: '1.2ms', lastCheckTime: '2026-01-01T12:00:01Z', details: null });
  });

  it('counts consecutive failures and keeps the time it first failed', () => {
    const check = new CheckState('link.health', true, t0);
    check.record({ ok: false, error: 'link count 0 less than configured minimum of 1', details: [], at: t0 + 1000, durationMs: 0.01 });
    check.record({ ok: false, error: 'link count 0 less than configured minimum of 1', details: [], at: t0 + 6000, durationMs: 0.02 });
    assert.deepEqual(check.view(false), {
      id: 'link.health',
      healthy: false,
      lastCheckDuration: '20µs',
      lastCheckTime: '2026-01-01T12:00:06Z',
      err: { message: 'link count 0 less than configured minimum of 1' },
      consecutiveFailures: 2,
      failingSince: '2026-01-01T12:00:01Z',
      details: [],
    });
    check.record({ ok: true, details: [], at: t0 + 7000, durationMs: 0 });
    assert.equal(check.view(false).consecutiveFailures, undefined);
  });

  it('reports healthy only when every check passes, and only id and healthy with ?type=short', () => {
    const passing = new CheckState('link.health', true, t0);
    const failing = new CheckState('controllerPing', false, t0);
    assert.deepEqual(healthReport([passing, failing], true), { data: { healthy: false, checks: [{ id: 'link.health', healthy: true }, { id: 'controllerPing', healthy: false }] }, meta: {} });
    failing.record({ ok: true, at: t0, durationMs: 1 });
    assert.equal(healthReport([passing, failing], false).data.healthy, true);
  });

  it('says why the controller ping and the link count fail, in the documented words', () => {
    assert.equal(controllerPingFailure({ connected: false, answered: false }), 'no control channels established yet');
    assert.equal(controllerPingFailure({ connected: true, answered: false }), 'control channels are slow');
    assert.equal(controllerPingFailure({ connected: true, answered: true }), undefined);
    assert.equal(linkCountFailure(1, 2), 'link count 1 less than configured minimum of 2');
    assert.equal(linkCountFailure(2, 2), undefined);
  });

  it('formats run times as Go durations', () => {
    assert.deepEqual([0, 0.0000271, 0.02746, 1.2, 1500].map(formatGoDuration), ['0s', '27ns', '27.46µs', '1.2ms', '1.5s']);
  });
});

const config: HealthChecksConfig = { ctrlPingCheck: { interval: 1000, timeout: 50, initialDelay: 0 }, linkCheck: { interval: 1000, initialDelay: 0, minLinks: 1 } };
const link = { id: 'l1', destRouterId: 'r2', latencyMs: 2, localAddr: '127.0.0.1:1', remoteAddr: '127.0.0.1:2' };

describe('router health checks', () => {
  it('controllerPing: fails with no channel, fails when the ping is slow, passes when answered', async () => {
    let connected = false;
    let answer: () => Promise<void> = async () => undefined;
    const runner = new HealthCheckRunner(routerCheckDefinitions(config, { ctrlConnected: () => connected, pingController: () => answer(), links: () => [] }), new ManualClock(t0));
    const ping = () => runner.report(false).data.checks.find((check) => check.id === 'controllerPing')!;
    assert.equal(ping().err?.message, didNotRunYet);
    await runner.runOnce('controllerPing');
    assert.equal(ping().err?.message, 'no control channels established yet');
    connected = true;
    answer = () => Promise.reject(new Error('controller request ping timed out after 50 ms'));
    await runner.runOnce('controllerPing');
    assert.equal(ping().err?.message, 'control channels are slow');
    assert.equal(ping().consecutiveFailures, 2);
    answer = async () => undefined;
    await runner.runOnce('controllerPing');
    assert.equal(ping().healthy, true);
  });

  it('link.health: details list the links; fails below minLinks; starts failing when minLinks is above 0', async () => {
    let links = [link];
    const runner = new HealthCheckRunner(routerCheckDefinitions(config, { ctrlConnected: () => true, pingController: async () => undefined, links: () => links }), new ManualClock(t0));
    const check = () => runner.report(false).data.checks.find((entry) => entry.id === 'link.health')!;
    assert.equal(check().healthy, false);
    await runner.runOnce('link.health');
    assert.equal(check().healthy, true);
    assert.deepEqual(check().details, [{ linkId: 'l1', destRouterId: 'r2', latency: 2e6, addresses: { single: { localAddr: '127.0.0.1:1', remoteAddr: '127.0.0.1:2' } } }]);
    links = [];
    await runner.runOnce('link.health');
    assert.equal(check().err?.message, 'link count 0 less than configured minimum of 1');
    assert.deepEqual(check().details, []);
  });

  it('link.health: a split link lists the ends of its payload and its ack connection', async () => {
    const addresses = { payload: { localAddr: '127.0.0.1:3', remoteAddr: '127.0.0.1:4' }, ack: { localAddr: '127.0.0.1:5', remoteAddr: '127.0.0.1:4' } };
    const runner = new HealthCheckRunner(routerCheckDefinitions(config, { ctrlConnected: () => true, pingController: async () => undefined, links: () => [{ ...link, addresses }] }), new ManualClock(t0));
    await runner.runOnce('link.health');
    const details = runner.report(false).data.checks.find((entry) => entry.id === 'link.health')!.details as Array<{ addresses: unknown }>;
    assert.deepEqual(details[0]!.addresses, addresses);
  });

  it('link.health starts passing when minLinks is 0', () => {
    const runner = new HealthCheckRunner(routerCheckDefinitions({ ...config, linkCheck: { ...config.linkCheck, minLinks: 0 } }, { ctrlConnected: () => false, pingController: async () => undefined, links: () => [] }), new ManualClock(t0));
    assert.equal(runner.report(true).data.checks.find((entry) => entry.id === 'link.health')!.healthy, true);
  });
});
