import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Dashboard, Panel } from '@grafana/grafana-foundation-sdk/dashboard';
import { alertCatalogue, runbookUrl } from '../../alerts/catalogue/alert-catalogue.ts';
import { stableJson } from '../generate/stable-json.ts';
import { queryCatalogue } from '../queries/query-catalogue.ts';
import { edgewardDatasource } from './datasource.ts';
import { dashboardFileName, edgewardDashboards } from './edgeward-dashboards.ts';

const options = { runbookBase: 'https://docs.example.test/edgeward/runbooks.md' };
const dashboards = edgewardDashboards(options);
const panelsOf = (dashboard: Dashboard) => (dashboard.panels ?? []).filter((panel): panel is Panel => panel.type !== 'row');
const targetsOf = (panel: Panel) => (panel.targets ?? []) as { refId?: string; expr?: string; datasource?: { type?: string; uid?: string } }[];
/** Grafana's own variables, which every dashboard has. */
const builtIns = ['__rate_interval', '__interval', '__range', '__all'];

test('the dashboards and their uids are fixed: links, bookmarks and provisioning rely on them', () => {
  assert.deepEqual(
    dashboards.map((dashboard) => [dashboard.uid, dashboard.title]),
    [
      ['edgeward-cluster-overview', 'edgeward / Cluster overview'],
      ['edgeward-raft-internals', 'edgeward / Raft internals'],
      ['edgeward-api-authentication', 'edgeward / API and authentication'],
      ['edgeward-routers', 'edgeward / Routers'],
      ['edgeward-runtime', 'edgeward / Runtime'],
    ],
  );
  for (const dashboard of dashboards) {
    assert.ok(dashboard.uid!.length <= 40, `${dashboard.uid} is longer than Grafana's 40 characters`);
    assert.equal(dashboardFileName(dashboard), `${dashboard.uid}.json`);
    assert.ok(dashboard.tags?.includes('edgeward'), dashboard.uid);
  }
});

test('two generations give the same text: nothing depends on the time or the run', () => {
  assert.equal(stableJson(edgewardDashboards(options)), stableJson(dashboards));
});

test('every panel and every query uses the $datasource variable, a Prometheus datasource that defaults to the provisioned one', () => {
  for (const dashboard of dashboards) {
    const variable = dashboard.templating?.list?.find((candidate) => candidate.name === 'datasource');
    assert.equal(variable?.type, 'datasource', dashboard.uid);
    assert.equal(variable?.query, 'prometheus');
    assert.equal(variable?.current?.value, edgewardDatasource.uid);
    for (const panel of panelsOf(dashboard)) {
      assert.deepEqual(panel.datasource, { type: 'prometheus', uid: '${datasource}' }, `${dashboard.uid}: ${panel.title}`);
      assert.ok(targetsOf(panel).length > 0, `${dashboard.uid}: ${panel.title} has no query`);
      for (const target of targetsOf(panel)) assert.deepEqual(target.datasource, { type: 'prometheus', uid: '${datasource}' }, `${panel.title} ${target.refId}`);
    }
  }
});

test('every panel has a unit, a description and a place on the grid; panel ids and query refIds are unique', () => {
  for (const dashboard of dashboards) {
    const ids = (dashboard.panels ?? []).map((panel) => panel.id);
    assert.equal(new Set(ids).size, ids.length, dashboard.uid);
    for (const panel of panelsOf(dashboard)) {
      const where = `${dashboard.uid}: ${panel.title}`;
      assert.ok(panel.fieldConfig?.defaults?.unit, `${where} has no unit`);
      assert.ok(panel.description, `${where} has no description`);
      assert.ok(panel.gridPos && panel.gridPos.x + panel.gridPos.w <= 24, where);
      const refIds = targetsOf(panel).map((target) => target.refId);
      assert.equal(new Set(refIds).size, refIds.length, where);
    }
  }
});

test('every query of every panel is a catalogue query, and every catalogue query is drawn somewhere', () => {
  const drawn = new Set<string>();
  for (const dashboard of dashboards) {
    for (const panel of panelsOf(dashboard)) {
      for (const target of targetsOf(panel)) {
        const query = queryCatalogue.find((candidate) => candidate.expr === target.expr);
        assert.ok(query, `${dashboard.uid}: ${panel.title}: ${target.expr} is not in the catalogue`);
        drawn.add(query.id);
      }
    }
  }
  assert.deepEqual(queryCatalogue.map((query) => query.id).filter((id) => !drawn.has(id)), []);
});

test('a dashboard defines every variable its queries use', () => {
  for (const dashboard of dashboards) {
    const defined = new Set([...(dashboard.templating?.list ?? []).map((variable) => variable.name), ...builtIns]);
    for (const panel of panelsOf(dashboard)) {
      for (const target of targetsOf(panel)) {
        for (const use of target.expr!.matchAll(/\$\{?(\w+)\}?/g)) assert.ok(defined.has(use[1]!), `${dashboard.uid}: ${panel.title} uses $${use[1]}`);
      }
    }
    for (const variable of dashboard.templating?.list ?? []) {
      if (variable.type !== 'query') continue;
      assert.deepEqual(variable.datasource, { type: 'prometheus', uid: '${datasource}' });
      assert.match(String(variable.query), /^label_values\(.+, \w+\)$/);
    }
  }
});

test('each alert has a tile on the overview that links to its runbook under the given base', () => {
  const overview = dashboards.find((dashboard) => dashboard.uid === 'edgeward-cluster-overview')!;
  for (const alert of alertCatalogue) {
    const tile = panelsOf(overview).find((panel) => panel.title === alert.name);
    assert.ok(tile, alert.name);
    const url = runbookUrl(alert.name, options.runbookBase);
    assert.equal(url, `https://docs.example.test/edgeward/runbooks.md#${alert.name.toLowerCase()}`);
    assert.deepEqual(tile.links?.map((link) => link.url), [url]);
    assert.deepEqual(tile.fieldConfig?.defaults?.links?.map((link) => (link as { url: string }).url), [url]);
    assert.equal(targetsOf(tile).length, alert.sources.length);
  }
  for (const dashboard of dashboards) {
    const runbooks = dashboard.links?.find((link) => link.title === 'Runbooks');
    assert.equal(runbooks?.url, options.runbookBase, dashboard.uid);
    assert.equal(runbooks && 'placement' in runbooks, false, 'links show in the header');
  }
});
