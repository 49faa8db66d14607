// docs/monitoring.md stays true: every metric the processes expose, every event type and every alert of the
// catalogue is listed, each alert with its severity and sources and a runbook link to a section that exists.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { alertCatalogue, runbookAnchor } from '../alerts/catalogue/alert-catalogue.ts';
import { alertsDaemonMetrics, controllerMetrics } from '../common/telemetry/metric-names.ts';
import { buildRouterMetrics } from '../router/run/router-metrics.ts';
import { routerSeries } from '../server/routers/router-metric-series.ts';

const root = join(import.meta.dirname, '..');
const guide = readFileSync(join(root, 'docs/monitoring.md'), 'utf8');
const runbooks = readFileSync(join(root, 'docs/runbooks.md'), 'utf8');

/** The table rows of the guide whose first cell is `name` in backticks. */
function rowsNaming(name: string): string[][] {
  return guide
    .split('\n')
    .filter((line) => line.startsWith(`| \`${name}\` |`))
    .map((line) => line.split('|').slice(1, -1).map((cell) => cell.trim()));
}

/** GitHub's anchors of the headings of a markdown file. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const match of markdown.matchAll(/^#{1,6} (.+)$/gm)) {
    anchors.add(match[1]!.trim().toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-'));
  }
  return anchors;
}

describe('docs/monitoring.md', () => {
  it('lists every metric of the controllers and the alerts daemon, with its type and labels', () => {
    for (const [name, contract] of Object.entries({ ...controllerMetrics, ...alertsDaemonMetrics })) {
      const rows = rowsNaming(name);
      assert.equal(rows.length, 1, `${name}: expected one row in docs/monitoring.md, found ${rows.length}`);
      const [, type, labels] = rows[0]!;
      assert.equal(type, contract.type, `${name}: type`);
      const shown = labels!.split(',').map((label) => label.trim().replace(/`/g, '')).filter(Boolean);
      assert.deepEqual(shown, [...contract.labels], `${name}: labels`);
    }
  });

  it('lists every gauge a router reports, under the name the controller exposes it by', () => {
    const report = buildRouterMetrics({
      routerId: 'r1',
      now: 0,
      links: [{ id: 'L1', latencyMs: 2, bytesSent: 10, bytesReceived: 20 } as never],
      ctrlLatencyMs: 1,
      ctrlConnected: true,
      heapUsedBytes: 1,
      rssBytes: 1,
      metricsDropped: 0,
      circuits: { circuits: 1, created: 2, failed: 3, dialFailures: 4, bytesIn: 5, bytesOut: 6, windowOverruns: 7, limitRefusals: 8, linkReadPauses: 9, bufferedBytes: 10 },
      edge: { channels: 1, connections: 2 },
    });
    const names = new Set(Object.entries(report.gauges).map(([gauge, value]) => `edgeward_${routerSeries(gauge, value)!.metric.replace(/\./g, '_')}`));
    assert.ok(names.size >= 7);
    for (const name of names) assert.equal(rowsNaming(name).length, 1, `${name}: expected one row in docs/monitoring.md`);
  });

  it('lists every alert of the catalogue with its severity, its sources and a runbook section that exists', () => {
    const anchors = anchorsOf(runbooks);
    for (const alert of alertCatalogue) {
      const rows = rowsNaming(alert.name);
      assert.equal(rows.length, 1, `${alert.name}: expected one row`);
      const [, severity, sources, , runbook] = rows[0]!;
      assert.equal(severity, alert.severity, `${alert.name}: severity`);
      assert.deepEqual(sources!.split(',').map((source) => source.trim()), [...alert.sources], `${alert.name}: raised by`);
      assert.equal(runbook, `[runbook](runbooks.md#${runbookAnchor(alert.name)})`);
      assert.ok(anchors.has(runbookAnchor(alert.name)), `docs/runbooks.md has no section ${alert.name}`);
    }
    const listed = [...guide.matchAll(/^\| `(Edgeward\w+)` \|/gm)].map((match) => match[1]);
    assert.deepEqual(listed.sort(), alertCatalogue.map((alert) => alert.name).sort(), 'no alert listed that the catalogue lacks');
  });

  it('names every cluster event type a controller writes', () => {
    const source = readFileSync(join(root, 'server/cluster/cluster-monitor.ts'), 'utf8');
    const types = new Set([...source.matchAll(/'((?:peer|leadership|state|members)\.[a-z_]+)'/g)].map((match) => match[1]!));
    assert.ok(types.size >= 9, `found ${[...types].join(', ')}`);
    const row = guide.split('\n').find((line) => line.startsWith('| `cluster` |'));
    assert.ok(row, 'no row for the cluster namespace');
    for (const type of types) assert.ok(row.includes(`\`${type}\``), `cluster event ${type} is not listed`);
  });

  it('links only to sections that exist', () => {
    for (const match of guide.matchAll(/\]\(([\w-]+\.md)#([\w-]+)\)/g)) {
      const anchors = anchorsOf(readFileSync(join(root, 'docs', match[1]!), 'utf8'));
      assert.ok(anchors.has(match[2]!), `${match[1]}#${match[2]} does not exist`);
    }
  });
});
