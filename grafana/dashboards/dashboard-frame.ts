// What every edgeward dashboard shares: uid and tags, the datasource and label variables, the time settings, the
// links to the other dashboards and to the runbooks, rows of panels, and panel ids numbered in order so that a
// link to one panel (`viewPanel=`) stays valid from one generation to the next.
import type { Builder } from '@grafana/grafana-foundation-sdk/cog';
import {
  DashboardBuilder,
  DashboardCursorSync,
  DashboardLinkBuilder,
  DashboardLinkType,
  RowBuilder,
  type Dashboard,
  type DashboardLink,
  type Panel,
} from '@grafana/grafana-foundation-sdk/dashboard';
import { clusterVariable, type LabelVariable } from '../queries/template-variables.ts';
import { datasourceVariableBuilder, labelVariableBuilder } from './dashboard-variables.ts';

export interface DashboardOptions {
  /** Where runbook links point: docs/runbooks.md as served somewhere the operator's browser reaches. */
  readonly runbookBase: string;
}

export interface DashboardRow {
  readonly title: string;
  readonly panels: readonly Builder<Panel>[];
}

export interface DashboardSpec {
  /** Stable: Grafana's URLs and links between dashboards use it. */
  readonly uid: string;
  readonly title: string;
  readonly description: string;
  readonly tags: readonly string[];
  /** Label variables after `$cluster` (which every dashboard has). */
  readonly variables: readonly LabelVariable[];
  readonly rows: readonly DashboardRow[];
}

/** The tag every edgeward dashboard carries; the dashboards' link menu lists the dashboards with it. */
export const edgewardTag = 'edgeward';

export function buildDashboard(spec: DashboardSpec, options: DashboardOptions): Dashboard {
  const builder = new DashboardBuilder(spec.title)
    .uid(spec.uid)
    .description(spec.description)
    .tags([edgewardTag, ...spec.tags])
    .timezone('browser')
    .time({ from: 'now-1h', to: 'now' })
    .refresh('30s')
    .tooltip(DashboardCursorSync.Crosshair)
    .withVariable(datasourceVariableBuilder());
  for (const variable of [clusterVariable, ...spec.variables]) builder.withVariable(labelVariableBuilder(variable));
  builder
    .link(new DashboardLinkBuilder('edgeward').type(DashboardLinkType.Dashboards).tags([edgewardTag]).asDropdown(true).includeVars(true).keepTime(true))
    .link(new DashboardLinkBuilder('Runbooks').type(DashboardLinkType.Link).url(options.runbookBase).icon('doc').targetBlank(true).tooltip('What each alert means and what to do'));
  for (const row of spec.rows) {
    builder.withRow(new RowBuilder(row.title));
    for (const panel of row.panels) builder.withPanel(panel);
  }
  const dashboard = builder.build();
  // Rows here are never collapsed, so every panel is at the top level, in order.
  (dashboard.panels ?? []).forEach((panel, index) => (panel.id = index + 1));
  headerPlacedLinks(dashboard);
  return dashboard;
}

/**
 * The SDK gives every link Grafana 12's `inControlsMenu` placement, which tucks a dashboard's links into a menu;
 * without it they show in the dashboard's header on every Grafana, and a panel link has no placement at all.
 */
function headerPlacedLinks(dashboard: Dashboard): void {
  const links: DashboardLink[] = [...(dashboard.links ?? [])];
  for (const panel of dashboard.panels ?? []) {
    if (panel.type === 'row') continue;
    const { links: panelLinks, fieldConfig } = panel as Panel;
    links.push(...(panelLinks ?? []), ...((fieldConfig?.defaults?.links ?? []) as DashboardLink[]));
  }
  for (const link of links) delete link.placement;
}
