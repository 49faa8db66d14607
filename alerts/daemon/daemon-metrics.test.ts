import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { alertsDaemonMetrics } from '../../common/telemetry/metric-names.ts';
import { promtool, requireTool } from '../../test/support/prometheus-tools.ts';
import { DaemonMetrics } from './daemon-metrics.ts';

/** A daemon's exposition after some of everything happened. */
async function busyExposition(): Promise<string> {
  const metrics = new DaemonMetrics();
  metrics.lines('log', 120);
  metrics.lines('events', 7);
  metrics.matched('peer-disconnected-log', 2);
  metrics.skippedRecords('log', 'not-json');
  metrics.setFiring(new Map([['EdgewardClusterLeaderless', 1]]));
  metrics.delivery('accepted');
  metrics.delivery('failed');
  metrics.setQueue(3);
  metrics.setCommitLag('ctrl1', 0, 0);
  metrics.setCommitLag('ctrl2', undefined, 12.5);
  metrics.setHealth('ctrl1', 200);
  metrics.setHealth('ctrl2', 429);
  metrics.setHealth('ctrl3', 'unreachable');
  return metrics.exposition();
}

function promtoolCheck(text: string): Promise<{ code: number; output: string }> {
  requireTool(promtool);
  return new Promise((resolve, reject) => {
    const child = spawn(promtool, ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'], timeout: 30_000 });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, output }));
    child.stdin.end(text);
  });
}

describe('DaemonMetrics', () => {
  it('exposes every metric of the contract with its type and labels', async () => {
    const text = await busyExposition();
    for (const [name, contract] of Object.entries(alertsDaemonMetrics)) {
      assert.ok(text.includes(`# TYPE ${name} ${contract.type}\n`), `${name} is a ${contract.type}`);
      const samples = text.split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
      assert.ok(samples.length > 0, `${name} has a sample`);
      for (const sample of samples) {
        const labels = [...sample.matchAll(/([a-z_]+)="/g)].map((match) => match[1]);
        assert.deepEqual(labels, [...contract.labels], `${sample} carries exactly the labels ${contract.labels.join(', ')}`);
      }
    }
    assert.match(text, /^edgeward_alerts_firing\{alertname="EdgewardClusterLeaderless",severity="critical"\} 1$/m);
    assert.match(text, /^edgeward_alerts_firing\{alertname="EdgewardPeerFlapping",severity="warning"\} 0$/m);
    assert.match(text, /^edgeward_alerts_controller_reachable\{controller="ctrl2"\} 1$/m);
    assert.match(text, /^edgeward_alerts_controller_raft_health_ok\{controller="ctrl2"\} 0$/m);
    assert.match(text, /^edgeward_alerts_controller_reachable\{controller="ctrl3"\} 0$/m);
    assert.doesNotMatch(text, /edgeward_alerts_commit_lag_entries\{controller="ctrl2"\}/, 'no entries lag before a controller wrote an event');
  });

  it('passes promtool check metrics: the default metrics that fail it are left out', async () => {
    const text = await busyExposition();
    assert.doesNotMatch(text, /^nodejs_active_/m);
    assert.match(text, /^process_cpu_seconds_total /m);
    const { code, output } = await promtoolCheck(text);
    assert.equal(code, 0, output);
    assert.equal(output.trim(), '');
  });

  it('promtool does fail an exposition with the gauges left in (the check above can fail)', async () => {
    const { code, output } = await promtoolCheck('# HELP nodejs_active_handles_total x\n# TYPE nodejs_active_handles_total gauge\nnodejs_active_handles_total 1\n');
    assert.notEqual(code, 0);
    assert.match(output, /non-counter metrics should not have "_total" suffix/);
  });
});
