import assert from 'node:assert/strict';
import { test } from 'node:test';
import { alertsDaemonMetrics, controllerMetrics, type MetricContract } from '../../common/telemetry/metric-names.ts';
import { alertCatalogue } from '../../alerts/catalogue/alert-catalogue.ts';
import { expandTemplateVariables, queryCatalogue, seriesConditions } from './query-catalogue.ts';
import { routerMetrics } from './router-metric-names.ts';

const contracts: Record<string, MetricContract> = { ...controllerMetrics, ...alertsDaemonMetrics, ...routerMetrics };
/** Labels Prometheus gives every edgeward series: the job, the instance and our target labels. */
const targetLabels = ['job', 'instance', 'cluster', 'controller'];
const keywords = new Set(['and', 'or', 'unless', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'offset']);
/** Aggregations may put `by (...)` between their name and their parenthesis. */
const aggregations = new Set(['sum', 'min', 'max', 'avg', 'group', 'stddev', 'stdvar', 'count', 'count_values', 'bottomk', 'topk', 'quantile']);

/** The metric names an expression reads (a histogram's _bucket, _sum and _count as its base name). */
function metricsIn(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '$1');
  const names = new Set<string>();
  for (const match of bare.matchAll(/[a-zA-Z_:][\w:]*(?!\w|\s*\()/g)) {
    const name = match[0];
    if (keywords.has(name) || aggregations.has(name)) continue;
    names.add(histogramBase(name) ?? name);
  }
  return [...names].sort();
}

function histogramBase(name: string): string | undefined {
  const base = /^(.*)_(bucket|sum|count)$/.exec(name)?.[1];
  return base !== undefined && contracts[base]?.type === 'histogram' ? base : undefined;
}

/** `metric{label="..."}` pairs of an expression. */
function matchersIn(expr: string): { metric: string; label: string }[] {
  const found: { metric: string; label: string }[] = [];
  for (const selector of expr.matchAll(/([a-zA-Z_:][\w:]*)\{([^}]*)\}/g)) {
    for (const matcher of selector[2]!.matchAll(/(\w+)\s*(?:=~|!~|!=|=)/g)) found.push({ metric: selector[1]!, label: matcher[1]! });
  }
  return found;
}

test('query ids are unique and name their group', () => {
  const ids = queryCatalogue.map((query) => query.id);
  assert.equal(new Set(ids).size, ids.length, `duplicate ids: ${ids.filter((id, index) => ids.indexOf(id) !== index).join(', ')}`);
  for (const id of ids) assert.match(id, /^(cluster|alerts|raft|api|routers|runtime)\.[A-Za-z0-9]+(\.[a-z]+)?$/);
});

test('each query declares exactly the metrics its expression reads', () => {
  for (const query of queryCatalogue) assert.deepEqual([...query.metrics].sort(), metricsIn(query.expr), `${query.id}: ${query.expr}`);
});

test('every metric a query reads is in the metric-names contract, a router gauge, ALERTS or up', () => {
  for (const query of queryCatalogue) {
    for (const metric of query.metrics) {
      if (metric === 'ALERTS' || metric === 'up') continue;
      assert.ok(contracts[metric], `${query.id} reads ${metric}, which common/telemetry/metric-names.ts does not name`);
      if (metric.startsWith('edgeward_router_')) assert.ok(metric in routerMetrics, `${query.id}: ${metric}`);
    }
  }
});

test('every series a query selects is narrowed to its job and the selected cluster, with labels the metric has', () => {
  for (const query of queryCatalogue) {
    for (const { metric, label } of matchersIn(query.expr)) {
      const contract = contracts[histogramBase(metric) ?? metric];
      const allowed =
        metric === 'ALERTS' ? ['alertname', 'alertstate', 'cluster'] : [...targetLabels, ...(contract?.labels ?? []), ...(metric.endsWith('_bucket') ? ['le'] : [])];
      assert.ok(allowed.includes(label), `${query.id}: ${metric} has no label ${label}`);
    }
    for (const selector of query.expr.matchAll(/([a-zA-Z_:][\w:]*)\{([^}]*)\}/g)) {
      assert.match(selector[2]!, /cluster=~"\$cluster"/, `${query.id}: ${selector[0]} is not narrowed to $cluster`);
      if (selector[1] !== 'ALERTS') assert.match(selector[2]!, /job="edgeward-(controller|alerts)"/, `${query.id}: ${selector[0]} names no job`);
    }
  }
});

test('every range is $__rate_interval, so that rate() and increase() follow the step and the scrape interval', () => {
  for (const query of queryCatalogue) {
    for (const range of query.expr.matchAll(/\[[^\]]*\]/g)) assert.equal(range[0], '[$__rate_interval]', `${query.id}: ${query.expr}`);
    for (const call of query.expr.matchAll(/\b(rate|irate|increase|deriv|delta)\(/g)) {
      assert.ok(query.expr.slice(call.index).match(/^\w+\([^()]*\[\$__rate_interval\]\)/), `${query.id}: ${call[1]}() without [$__rate_interval]: ${query.expr}`);
    }
  }
});

test('only routers and faults are allowed to leave a query empty, and each names its condition', () => {
  for (const query of queryCatalogue) {
    assert.ok(query.seriesWhen in seriesConditions, query.id);
    const routerQuery = query.metrics.some((metric) => metric.startsWith('edgeward_router_'));
    assert.equal(routerQuery, query.seriesWhen === 'routers' || query.seriesWhen === 'router-links', `${query.id} is ${query.seriesWhen}`);
  }
});

test('each alert of the catalogue has one query per source that raises it', () => {
  for (const alert of alertCatalogue) {
    for (const source of alert.sources) {
      const query = queryCatalogue.find((candidate) => candidate.id === `alerts.${alert.name}.${source}`);
      assert.ok(query, `${alert.name} from ${source}`);
      assert.ok(query.expr.includes(`alertname="${alert.name}"`), query.expr);
    }
  }
});

test('expandTemplateVariables fills in $name and ${name}, and refuses a variable without a value', () => {
  const values = { cluster: 'prod', __rate_interval: '1m' };
  assert.equal(expandTemplateVariables('rate(x{cluster=~"$cluster"}[$__rate_interval]) + y{c="${cluster}"}', values), 'rate(x{cluster=~"prod"}[1m]) + y{c="prod"}');
  assert.throws(() => expandTemplateVariables('x{controller=~"$controller"}', values), /no value for template variable \$controller/);
});
